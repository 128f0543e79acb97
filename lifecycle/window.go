package lifecycle

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm/window"
	"github.com/nightshift-dev/nightshift/statedir"
)

// learnWindow asks the server the run's model is on what it knows of the
// model (package window), when the model can ask (the OpenAI provider's
// client on a compatible server: llama.cpp, vLLM, Ollama, LM Studio):
//
//   - a run given no context window (none in the model table, no
//     --context-window) compacts at the server's, and its start line
//     says so: `window=512 (server)`;
//   - a chat template that ignores tools is named once, before the run
//     starts, rather than found out by the model's failure;
//   - an overflow error that names the window is kept for the runs after
//     this one (window.Cache.Watch).
//
// The server is asked once per endpoint and model in the process, and
// what it said is kept in the state directory's windows/ folder, for
// when it cannot be asked. A model that cannot ask changes nothing.
func learnWindow(ctx context.Context, cfg *Config) {
	a, ok := cfg.Model.(window.Asker)
	if !ok {
		return
	}
	dir := ""
	if base, err := statedir.Base(cfg.StateBase); err == nil {
		dir = filepath.Join(base, window.DirName)
	}
	cache := window.Shared(dir)
	info := cache.Learn(ctx, a)
	cfg.Model = cache.Watch(cfg.Model, a.WindowKey())
	if info.ToolsIgnored && cfg.Warn != nil {
		cfg.Warn(fmt.Sprintf("the server runs %s with a chat template that does not support tools (%s): the tools are dropped without a word and the model never sees them; start the server with a template that has tools (llama.cpp: --jinja, or --chat-template-file)",
			modelOr(cfg.spec.ModelName), info.From))
	}
	if cfg.window() > 0 || info.Tokens <= 0 {
		return
	}
	cfg.ModelWindow = info.Tokens
	cfg.Start = append(cfg.Start, agent.StartField{Key: "window", Value: fmt.Sprintf("%d (server)", info.Tokens)})
}

// modelOr names the model for a message.
func modelOr(name string) string {
	if name == "" {
		return "the model"
	}
	return name
}
