package retry

import "github.com/nightshift-dev/nightshift/llm"

// EstimateTokens is a rough count of the tokens a request spends against
// a tokens-per-minute limit: its prompt at llm.CharsPerToken, plus its
// MaxTokens, which providers count against the limit up front.
func EstimateTokens(req *llm.Request) int {
	if req == nil {
		return 0
	}
	return int(llm.Tokens(req.Chars())) + max(req.MaxTokens, 0)
}
