package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

// Local model servers, as the simulator plays them (docs/scenarios.md,
// "A local server"): a scenario's `server:` section makes the simulator
// answer as llama.cpp, vLLM, Ollama or LM Studio do where a client can
// tell: the endpoints that say the model's context window, a prompt over
// the window refused in the server's own words, a reply that reaches the
// window stopped there with finish_reason "length", a chat template that
// ignores tools, and a first byte that waits for the prompt to be read.

// The kinds of local server the simulator plays.
const (
	KindLlamaCpp = "llama.cpp"
	KindVLLM     = "vllm"
	KindOllama   = "ollama"
	KindLMStudio = "lmstudio"
)

// LocalServer is a scenario's local server: what the simulator says and does
// as that server would.
type LocalServer struct {
	// Kind is the server played: llama.cpp (the default), vllm, ollama
	// or lmstudio. It decides the endpoints that say the window and the
	// words of the overflow error.
	Kind string `yaml:"kind"`
	// Model is the model the server runs, as its endpoints name it;
	// default "scripted". Calls for any model are answered.
	Model string `yaml:"model"`
	// Window is the context window in tokens, prompt and output
	// together; 0: none (no overflow, no stop at the window).
	Window int `yaml:"window"`
	// Tools is "supported" (the default) or "ignored": a chat template
	// without tool support, as llama.cpp reports it in /props
	// (chat_template_caps.supports_tools false). Ignored tools are not
	// counted in the prompt (the template drops them); the scenario's
	// replies are played as written.
	Tools string `yaml:"tools"`
	// Prefill is the time per prompt token before the first byte of a
	// reply (its headers included), on the simulator's clock: a server
	// reading a long prompt.
	Prefill time.Duration `yaml:"prefill"`
}

// validate checks the section and fills its defaults.
func (sv *LocalServer) validate() error {
	if sv == nil {
		return nil
	}
	switch sv.Kind {
	case "":
		sv.Kind = KindLlamaCpp
	case KindLlamaCpp, KindVLLM, KindOllama, KindLMStudio:
	default:
		return fmt.Errorf("server: unknown kind %q (want llama.cpp, vllm, ollama or lmstudio)", sv.Kind)
	}
	switch sv.Tools {
	case "", "supported", "ignored":
	default:
		return fmt.Errorf("server: unknown tools %q (want supported or ignored)", sv.Tools)
	}
	switch {
	case sv.Window < 0:
		return errors.New("server: negative window")
	case sv.Prefill < 0:
		return errors.New("server: negative prefill")
	}
	if sv.Model == "" {
		sv.Model = "scripted"
	}
	return nil
}

// counted is the request as the server counts its prompt: without the
// tools when its chat template ignores them.
func (sv *LocalServer) counted(req *llm.Request) *llm.Request {
	if sv == nil || sv.Tools != "ignored" || len(req.Tools) == 0 {
		return req
	}
	c := *req
	c.Tools = nil
	return &c
}

// prefill is how long the server reads a prompt of tokens tokens.
func (sv *LocalServer) prefill(tokens int64) time.Duration {
	if sv == nil || sv.Prefill <= 0 {
		return 0
	}
	return time.Duration(tokens) * sv.Prefill
}

// overflows reports whether a prompt of tokens tokens, with an output cap
// of limit, is refused: over the window (vLLM refuses a prompt and cap
// over it too).
func (sv *LocalServer) overflows(tokens int64, limit int) bool {
	if sv == nil || sv.Window <= 0 {
		return false
	}
	if sv.Kind == KindVLLM && limit > 0 {
		return tokens+int64(limit) > int64(sv.Window)
	}
	return tokens > int64(sv.Window)
}

// overflowMessage is the server's words for a refused prompt.
func (sv *LocalServer) overflowMessage(tokens int64, limit int) string {
	w := sv.Window
	switch sv.Kind {
	case KindVLLM:
		return fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			w, tokens+int64(limit), tokens, limit)
	case KindOllama:
		return "the input length exceeds the context length"
	case KindLMStudio:
		return fmt.Sprintf("Trying to keep the first %d tokens when context the overflows. However, the model is loaded with context length of only %d tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input", tokens, w)
	}
	return fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", tokens, w)
}

// overflowType is the error type the server gives the refusal.
func (sv *LocalServer) overflowType() string {
	switch sv.Kind {
	case KindVLLM:
		return "BadRequestError"
	case KindLlamaCpp:
		return "exceed_context_size_error"
	}
	return ""
}

// overflowError is the refusal in process: what a provider reports.
func (sv *LocalServer) overflowError(tokens int64, limit int) *llm.Error {
	msg := sv.overflowMessage(tokens, limit)
	return llm.OverflowError(&llm.Error{Provider: "scripted", Status: http.StatusBadRequest, Type: sv.overflowType(),
		Message: msg, Class: llm.ClassifyStatus(http.StatusBadRequest, sv.overflowType(), msg)})
}

// writeOverflow answers the refusal over HTTP, as the server writes it:
// on the OpenAI wire in the server's own body (llama.cpp's carries
// n_prompt_tokens and n_ctx), on the Anthropic wire as the Messages API
// says it.
func (sv *LocalServer) writeOverflow(w http.ResponseWriter, d dialect, rid string, tokens int64, limit int) {
	if d.wire() == wireAnthropic {
		d.writeError(w, http.StatusBadRequest, ErrorBody{Type: "invalid_request_error",
			Message: fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, sv.Window)}, rid)
		return
	}
	msg := sv.overflowMessage(tokens, limit)
	var body any
	switch sv.Kind {
	case KindLlamaCpp:
		body = map[string]any{"error": map[string]any{"code": 400, "message": msg, "type": "exceed_context_size_error",
			"n_prompt_tokens": tokens, "n_ctx": sv.Window}}
	case KindVLLM:
		body = map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "param": nil, "code": 400}}
	default:
		body = map[string]any{"error": msg}
	}
	writeJSON(w, http.StatusBadRequest, body)
}

// atWindow cuts a reply that would pass the window where the server
// stops it: the output is what the window leaves, its content cut to as
// many characters (about four a token), and it stops max_tokens
// ("length"). It reports whether it cut.
func (sv *LocalServer) atWindow(content []llm.Block, u *llm.Usage) ([]llm.Block, bool) {
	if sv == nil || sv.Window <= 0 || u.InputTokens+u.OutputTokens <= int64(sv.Window) {
		return content, false
	}
	room := max(int64(sv.Window)-u.InputTokens, 0)
	u.OutputTokens = room
	return cutContent(content, int(room*4)), true
}

// cutContent keeps the first chars characters of content, as a reply cut
// there: its text, then each tool call's name and input; a tool call cut
// before its name is complete is dropped, one cut in its input keeps the
// input's start (not JSON).
func cutContent(content []llm.Block, chars int) []llm.Block {
	var out []llm.Block
	for _, b := range content {
		if chars <= 0 {
			break
		}
		switch b.Type {
		case llm.TextBlock:
			if len(b.Text) > chars {
				b.Text = b.Text[:chars]
			}
			chars -= len(b.Text)
		case llm.ToolUseBlock:
			if len(b.Name) > chars {
				return out
			}
			chars -= len(b.Name)
			if len(b.Input) > chars {
				b.Input = json.RawMessage(string(b.Input[:chars]))
			}
			chars -= len(b.Input)
		}
		out = append(out, b)
	}
	return out
}

// serveLocal answers the endpoints of the scenario's server that say the
// model's window; it reports whether the path was one.
func (s *Server) serveLocal(w http.ResponseWriter, r *http.Request) bool {
	sv := s.eng.sc.Server
	if sv == nil {
		return false
	}
	p := r.URL.Path
	model := sv.Model
	switch {
	case sv.Kind == KindLlamaCpp && p == "/props":
		writeJSON(w, http.StatusOK, map[string]any{
			"default_generation_settings": map[string]any{"n_ctx": sv.Window, "params": map[string]any{"n_predict": -1}},
			"total_slots":                 1, "model_alias": model, "model_path": model, "build_info": "scripted",
			"chat_template_caps": map[string]any{"supports_tools": sv.Tools != "ignored", "supports_tool_calls": sv.Tools != "ignored",
				"supports_system_role": true, "supports_parallel_tool_calls": sv.Tools != "ignored"},
		})
	case (p == "/v1/models" || p == "/models") && dialectOf(r).wire() == wireOpenAI:
		entry := map[string]any{"id": model, "object": "model", "created": s.clock.Now().Unix()}
		switch sv.Kind {
		case KindLlamaCpp:
			entry["owned_by"] = "llamacpp"
			entry["meta"] = map[string]any{"n_ctx": sv.Window, "n_ctx_train": max(sv.Window, 32768)}
		case KindVLLM:
			entry["owned_by"] = "vllm"
			entry["root"] = model
			entry["max_model_len"] = sv.Window
		case KindOllama:
			entry["owned_by"] = "library"
		case KindLMStudio:
			entry["owned_by"] = "organization_owner"
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{entry}})
	case sv.Kind == KindLMStudio && p == "/api/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"models": []any{map[string]any{
			"type": "llm", "key": model, "display_name": model, "max_context_length": max(sv.Window, 32768),
			"loaded_instances": []any{map[string]any{"id": model, "config": map[string]any{"context_length": sv.Window}}},
		}}})
	case sv.Kind == KindLMStudio && (p == "/api/v0/models" || strings.HasPrefix(p, "/api/v0/models/")):
		m := map[string]any{"id": model, "object": "model", "type": "llm", "state": "loaded", "max_context_length": sv.Window}
		if p == "/api/v0/models" {
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{m}})
			break
		}
		if id := strings.TrimPrefix(p, "/api/v0/models/"); id != model {
			writeJSON(w, http.StatusNotFound, map[string]any{"error": "model " + id + " not found"})
			break
		}
		writeJSON(w, http.StatusOK, m)
	case sv.Kind == KindOllama && p == "/api/ps":
		// The model is not loaded until a call: /api/show says its window.
		writeJSON(w, http.StatusOK, map[string]any{"models": []any{}})
	case sv.Kind == KindOllama && p == "/api/show" && r.Method == http.MethodPost:
		var in struct {
			Model string `json:"model"`
			Name  string `json:"name"`
		}
		json.NewDecoder(r.Body).Decode(&in) //nolint:errcheck // a body that is no JSON names no model
		if name := strings.TrimSuffix(in.Model+in.Name, ":latest"); name != model {
			writeJSON(w, http.StatusNotFound, map[string]any{"error": fmt.Sprintf("model '%s' not found", in.Model+in.Name)})
			break
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"parameters": fmt.Sprintf("num_ctx                        %d\nstop                           \"<|im_end|>\"", sv.Window),
			"model_info": map[string]any{"general.architecture": "qwen2", "qwen2.context_length": 32768},
			"details":    map[string]any{"format": "gguf", "family": "qwen2"},
		})
	default:
		return false
	}
	s.logf("%s -> %s %s", p, sv.Kind, "window")
	return true
}

// The chat templates whose raw tool-call markup a reply can be written
// in (Reply.Markup), as a server that did not parse it sends it.
var markups = map[string]func(name, args string) string{
	"qwen": func(name, args string) string {
		return fmt.Sprintf("<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", name, args)
	},
	"mistral": func(name, args string) string {
		return fmt.Sprintf("[TOOL_CALLS][{\"name\": %q, \"arguments\": %s}]", name, args)
	},
	"phi": func(name, args string) string {
		return fmt.Sprintf("<|tool_call|>[{\"name\": %q, \"arguments\": %s}]<|/tool_call|>", name, args)
	},
	"llama": func(name, args string) string {
		return fmt.Sprintf("<|python_tag|>{\"name\": %q, \"parameters\": %s}", name, args)
	},
}

// inMarkup writes the content's tool calls into its text, in the markup
// of the chat template named.
func inMarkup(content []llm.Block, template string) []llm.Block {
	render := markups[template]
	if render == nil {
		return content
	}
	var text strings.Builder
	for _, b := range content {
		switch b.Type {
		case llm.TextBlock:
			text.WriteString(b.Text)
		case llm.ToolUseBlock:
			if text.Len() > 0 {
				text.WriteString("\n")
			}
			text.WriteString(render(b.Name, string(b.Input)))
		}
	}
	if text.Len() == 0 {
		return nil
	}
	return []llm.Block{llm.Text(text.String())}
}
