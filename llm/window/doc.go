// Package window learns the context window of a model from the server that
// runs it, and keeps what it learnt.
//
// The model table knows the windows of hosted models; a model on a local
// server (llama.cpp, Ollama, vLLM, LM Studio) has none there, and its window
// is whatever the server was started with (`llama-server -c 512`). Without
// it nothing is compacted, and a long run grows until the server refuses
// it. The server knows its window, and says so at an endpoint of its own;
// an Asker (the OpenAI provider's client) asks those endpoints, and a
// Cache asks each endpoint and model once per process, keeps the answer in
// the state directory, and falls back on it when asking fails. A window
// that an overflow error names (Watch) is kept the same way.
//
// Example:
//
//	cache := window.Shared(filepath.Join(base, window.DirName))
//	info := cache.Learn(ctx, client) // client: *openai.Client
//	if info.Tokens > 0 {
//		// compact at info.Tokens; say where it came from: info.From
//	}
//	model := cache.Watch(client, client.WindowKey())
package window
