package tracing

import "github.com/nightshift-dev/nightshift/llm"

// cacheTokens are a usage's prompt tokens read from and written to the
// provider's cache (gen_ai.usage.cache_read.input_tokens and
// gen_ai.usage.cache_creation.input_tokens; both are counted in
// gen_ai.usage.input_tokens too, as llm.Usage counts them).
func cacheTokens(u llm.Usage) (read, write int64) { return u.CacheReadTokens, u.CacheWriteTokens }
