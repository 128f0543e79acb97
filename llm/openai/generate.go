package openai

import (
	"context"
	"errors"
	"net/http"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/classify"
)

// generateOnce makes one non-streaming call.
func (c *Client) generateOnce(ctx context.Context, call *call) (*llm.Response, error) {
	defer call.pooled.Done()
	var res *http.Response
	var body []byte
	// The body is taken as bytes and decoded here, so that a reply that
	// arrived whole but is not a completion is told apart from a
	// connection that broke while it arrived.
	_, err := c.sdk.Chat.Completions.New(ctx, call.params, option.WithRequestBody("application/json", call.body),
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
	out, ok, err := decodeReply(body)
	if err != nil {
		return nil, c.malformed(res, "reply is not a chat completion: "+err.Error(), err)
	}
	if !ok {
		return nil, c.malformed(res, "reply has no choices", nil)
	}
	out.Header = res.Header
	return out, nil
}

func (c *Client) malformed(res *http.Response, msg string, err error) *llm.Error {
	e := &llm.Error{Provider: Provider, Class: llm.Malformed, Message: msg, Err: err}
	if res != nil {
		e.Header = res.Header
	}
	return e
}

// fail classifies the failure of a call whose response, if any, is res.
func (c *Client) fail(ctx context.Context, err error, res *http.Response) *llm.Error {
	call := classify.Call{Provider: Provider, Secret: c.key, Response: res}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		call.StreamError = se.Event.Data
		if len(call.StreamError) == 0 {
			call.StreamError = []byte("{}")
		}
	}
	return call.Error(ctx, err)
}
