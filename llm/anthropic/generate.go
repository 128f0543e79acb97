package anthropic

import (
	"context"
	"errors"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/classify"
)

// generateOnce makes one non-streaming call.
func (c *Client) generateOnce(ctx context.Context, call *call) (*llm.Response, error) {
	defer call.pooled.Done()
	p := call.params
	// The SDK refuses, before sending, a non-streaming call whose output
	// cap may take longer than ten minutes to produce; say what to change.
	if _, err := sdk.CalculateNonStreamingTimeout(int(p.MaxTokens), p.Model, nil); err != nil {
		return nil, &llm.Error{Provider: Provider, Class: llm.BadRequest,
			Message: "max_tokens too large for a non-streaming call: set Config.Stream", Err: err}
	}
	var res *http.Response
	var body []byte
	// The body is taken as bytes and decoded here, so that a reply that
	// arrived whole but is not a message is told apart from a connection
	// that broke while it arrived (both end in io.ErrUnexpectedEOF).
	_, err := c.sdk.Messages.New(ctx, p, option.WithRequestBody("application/json", call.body),
		option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			// The transport reads the pooled body through counted
			// readers, so that it is reused only once nothing reads it.
			call.pooled.Attach(req)
			return next(req)
		}),
		option.WithResponseInto(&res), option.WithResponseBodyInto(&body))
	if err != nil {
		return nil, c.fail(ctx, err, res)
	}
	out, err := decodeReply(body)
	if err != nil {
		return nil, &llm.Error{Provider: Provider, Class: llm.Malformed, Header: res.Header,
			Message: "reply is not a message: " + err.Error(), Err: err}
	}
	out.Header = res.Header
	return out, nil
}

// fail classifies the failure of a call whose response, if any, is res.
func (c *Client) fail(ctx context.Context, err error, res *http.Response) *llm.Error {
	call := classify.Call{Provider: Provider, Secret: c.key, Response: res}
	// An error event in a stream arrives as an API error on a 200
	// response: its body is the event, not an error status.
	var api *sdk.Error
	if errors.As(err, &api) && api.StatusCode < 400 {
		call.StreamError = []byte(api.RawJSON())
		if len(call.StreamError) == 0 {
			call.StreamError = []byte("{}")
		}
	}
	return call.Error(ctx, err)
}
