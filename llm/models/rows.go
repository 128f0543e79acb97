// Code generated from models.yaml by TestTheRowsAreModelsYAML; DO NOT EDIT.
// Edit models.yaml, then run: go test ./llm/models -run TestTheRowsAreModelsYAML -update

package models

// embeddedRows is models.yaml as static data (see rows_test.go).
var embeddedRows = []Row{
	{
		Provider:      "anthropic",
		Name:          "claude-sonnet-5-5",
		Roles:         []string{"worker", "judge"},
		ContextWindow: 1000000,
		Price:         &Price{Input: &price0, Output: &price1, CacheWrite: &price2, CacheRead: &price3},
		Source:        "https://platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview (Anthropic's model page: input, output, 5m cache write, cache read, 1M context)",
		AsOf:          "2026-11-30",
		Note:          "Third-party price trackers (github.com/kurofune/claudit v1.9.2, github.com/TheKrush/PromptFuel v1.0.23) report the cache read cut to $0.10 from 2026-10-07; not verified on Anthropic's own pages, so the model page's $0.20 is kept (it can only overstate). Not marked deprecated by anthropic-sdk-go v1.84.0.",
	},
	{
		Provider:      "anthropic",
		Name:          "claude-sonnet-5",
		ContextWindow: 1000000,
		Price:         &Price{Input: &price0, Output: &price1, CacheWrite: &price2, CacheRead: &price3},
		Source:        "https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview",
		AsOf:          "2026-11-30",
	},
	{
		Provider:      "anthropic",
		Name:          "claude-opus-5-5",
		ContextWindow: 1000000,
		Price:         &Price{Input: &price4, Output: &price5},
		Source:        "https://platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview (comparison table: Opus 5.5, 1M context, $4 / $20)",
		AsOf:          "2026-11-30",
		Note:          "Cache write and read prices not found on an Anthropic page from here: left unknown, so a call that used the cache costs \"unknown\".",
	},
	{
		Provider:      "anthropic",
		Name:          "claude-haiku-5-5",
		ContextWindow: 1000000,
		Price:         &Price{Input: &price6, Output: &price7, CacheWrite: &price8, CacheRead: &price9},
		LongPrompt:    &LongPrompt{Above: 100000, Price: Price{Input: &price7, Output: &price2, CacheWrite: &price10, CacheRead: &price11}},
		Source:        "https://platform.claude.com/docs/zh-CN/models/haiku-5-5/overview (input, output, 5m cache write, both tiers); https://github.com/kurofune/claudit/releases/tag/v1.9.2 (cache reads of both tiers, not verified on Anthropic's page)",
		AsOf:          "2026-11-30",
	},
	{
		Provider:      "anthropic",
		Name:          "claude-haiku-4-5",
		Aliases:       []string{"claude-haiku-4-5-20251001"},
		ContextWindow: 200000,
		Price:         &Price{Input: &price12, Output: &price13, CacheWrite: &price14, CacheRead: &price6},
		Source:        "https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview (comparison table: 200K context, $1 / $5); https://artka.dev/en/courses/claude-code-guide/11-models-and-pricing (cache write and read, April 2026, third party)",
		AsOf:          "2026-11-30",
	},
	{
		Provider:      "openai",
		Name:          "gpt-6-sol",
		Roles:         []string{"worker", "judge"},
		ContextWindow: 1050000,
		Price:         &Price{Input: &price0, Output: &price1, CacheWrite: &price2, CacheRead: &price3},
		LongPrompt:    &LongPrompt{Above: 272000, Price: Price{Input: &price4, Output: &price15, CacheRead: &price16}},
		Source:        "https://docs.litellm.ai/blog/gpt_6_sol_luna (2026-09-22: $2 / $10, 1,050,000-token context); https://github.com/merefield/codexometer/releases/tag/v0.18.4 (cached input, cache writes); https://github.com/amine123max/Codex-Manager/releases/tag/0.4.6 (above 272K input tokens). OpenAI's own pricing page could not be read from here: these are third parties citing it.",
		AsOf:          "2026-11-30",
		Note:          "A reasoning model: the cap goes as max_completion_tokens. Chat Completions reports no cache writes, so cache_write is never charged. Not marked deprecated by openai-go v3.98.0.",
	},
	{
		Provider:      "openai",
		Name:          "gpt-6-luna",
		ContextWindow: 1050000,
		Price:         &Price{Input: &price6, Output: &price7, CacheWrite: &price8, CacheRead: &price9},
		LongPrompt:    &LongPrompt{Above: 272000, Price: Price{Input: &price3, Output: &price17, CacheRead: &price18}},
		Source:        "https://docs.litellm.ai/blog/gpt_6_sol_luna; https://github.com/merefield/codexometer/releases/tag/v0.18.4; https://github.com/amine123max/Codex-Manager/releases/tag/0.4.6 (third parties citing OpenAI's pricing page, not read from here)",
		AsOf:          "2026-11-30",
	},
	{
		Provider:      "openai",
		Name:          "gpt-5.5",
		Aliases:       []string{"gpt-5.5-2026-04-23"},
		ContextWindow: 1000000,
		Price:         &Price{Input: &price13, Output: &price19, CacheRead: &price7},
		Source:        "https://www.morphllm.com/openai-api-pricing (June 2026, third party copying OpenAI's pricing page, not read from here)",
		AsOf:          "2026-11-30",
		Note:          "Cache write price not found; Chat Completions reports none anyway.",
	},
	{
		Provider:      "openai",
		Name:          "gpt-5.4",
		ContextWindow: 1000000,
		Price:         &Price{Input: &price2, Output: &price15, CacheRead: &price20},
		Source:        "https://www.morphllm.com/openai-api-pricing (June 2026, third party copying OpenAI's pricing page, not read from here)",
		AsOf:          "2026-11-30",
	},
	{
		Provider:      "openai",
		Name:          "gpt-5.4-mini",
		Aliases:       []string{"gpt-5.4-mini-2026-03-17"},
		ContextWindow: 1000000,
		Price:         &Price{Input: &price17, Output: &price21, CacheRead: &price22},
		Source:        "https://www.morphllm.com/openai-api-pricing (June 2026, third party copying OpenAI's pricing page, not read from here)",
		AsOf:          "2026-11-30",
	},
	{
		Provider: "scripted",
		Name:     "*",
		Price:    &Price{Input: &price23, Output: &price23, CacheWrite: &price23, CacheRead: &price23},
		Source:   "nightshift's own simulator (llm/scripted) charges nothing",
		AsOf:     "2026-11-30",
	},
}

// The prices of embeddedRows, in US dollars per million tokens, each
// figure once.
var (
	price0  float64 = 2
	price1  float64 = 10
	price2  float64 = 2.5
	price3  float64 = 0.2
	price4  float64 = 4
	price5  float64 = 20
	price6  float64 = 0.1
	price7  float64 = 0.5
	price8  float64 = 0.125
	price9  float64 = 0.01
	price10 float64 = 0.625
	price11 float64 = 0.05
	price12 float64 = 1
	price13 float64 = 5
	price14 float64 = 1.25
	price15 float64 = 15
	price16 float64 = 0.4
	price17 float64 = 0.75
	price18 float64 = 0.02
	price19 float64 = 30
	price20 float64 = 0.25
	price21 float64 = 4.5
	price22 float64 = 0.075
	price23 float64 = 0
)
