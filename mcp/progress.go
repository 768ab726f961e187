package mcp

import (
	"context"
	"encoding/json"
	"fmt"
)

// notifier sends a notification on the connection a request came in on;
// *conn is one.
type notifier interface {
	Notify(ctx context.Context, method string, params any) error
}

type notifierKey struct{}

type progressTokenKey struct{}

// withNotifier lets the request's handlers send notifications on conn.
func withNotifier(ctx context.Context, conn notifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, conn)
}

// withProgressToken keeps params._meta.progressToken, when it is a string
// or an integer (what the spec allows), for the handlers that may report
// progress.
func withProgressToken(ctx context.Context, params map[string]json.RawMessage) context.Context {
	tok, ok := decodeMeta(params)["progressToken"]
	if !ok {
		return ctx
	}
	switch jsonKind(tok) {
	case "string":
	case "number":
		var n int64
		if json.Unmarshal(tok, &n) != nil {
			return ctx
		}
	default:
		return ctx
	}
	return context.WithValue(ctx, progressTokenKey{}, tok)
}

// progressParams is a notifications/progress message.
type progressParams struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress int             `json:"progress"`
	Total    int             `json:"total,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// progressSink sends one request's progress, or nothing when the request
// carried no token.
type progressSink struct {
	n     notifier
	token json.RawMessage
	last  int
}

func progressFor(ctx context.Context) *progressSink {
	tok, _ := ctx.Value(progressTokenKey{}).(json.RawMessage)
	n, _ := ctx.Value(notifierKey{}).(notifier)
	if tok == nil || n == nil {
		return nil
	}
	return &progressSink{n: n, token: tok, last: -1}
}

// send reports done of total once per new value of done (progress must
// increase); nothing once the request is cancelled, which must see no
// more messages.
func (p *progressSink) send(ctx context.Context, done, total int, what string) {
	if p == nil || done <= p.last || ctx.Err() != nil {
		return
	}
	p.last = done
	msg := fmt.Sprintf("%s: %d of %d", what, done, total)
	// A failed write ends the connection, which the reader sees; a
	// progress message is not worth more.
	_ = p.n.Notify(ctx, methodProgress, progressParams{Token: p.token, Progress: done, Total: total, Message: msg})
}
