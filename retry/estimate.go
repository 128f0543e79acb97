package retry

import "github.com/nightshift-dev/nightshift/llm"

// charsPerToken is the usual rough ratio of English text and JSON.
const charsPerToken = 4

// EstimateTokens is a rough count of the tokens a request spends against
// a tokens-per-minute limit: its text at four characters a token, plus
// its MaxTokens, which providers count against the limit up front.
func EstimateTokens(req *llm.Request) int {
	if req == nil {
		return 0
	}
	n := len(req.System)
	for _, m := range req.Messages {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Input) + len(b.Name)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return (n+charsPerToken-1)/charsPerToken + max(req.MaxTokens, 0)
}
