package openai

// Provider names the API the client speaks, for traces
// (gen_ai.provider.name).
func (c *Client) Provider() string { return "openai" }
