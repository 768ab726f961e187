package mcp

import (
	"context"
)

// subscriptions/listen (2026-07-28, docs/protocol.md §9): a client opens a
// long-lived request naming what it wants to hear of; the server first
// acknowledges with the honoured subset, then sends only those
// notifications, each tagged with the listen request's id, until the
// client cancels it (notifications/cancelled on stdio, closing the stream
// over HTTP) or the server ends, when it is answered.

const (
	metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

var listenFeature = &feature{
	name: "subscriptions",
	methods: map[string]methodSpec{
		methodListen: {handle: (*server).listen, modern: true},
	},
}

type listenParams struct {
	Notifications listenWants `json:"notifications"`
}

// send tells the listener of a reload, as far as it opted in.
func (l *listen) send(s *server, changed map[string]bool) {
	meta := map[string]any{metaSubscriptionID: l.id}
	if l.wants.ToolsListChanged {
		l.sess.notify(methodToolsChanged, map[string]any{"_meta": meta})
	}
	if l.wants.PromptsListChanged && s.hasFeature("prompts") {
		l.sess.notify(methodPromptsChanged, map[string]any{"_meta": meta})
	}
	if l.wants.ResourcesListChanged {
		l.sess.notify(methodResChanged, map[string]any{"_meta": meta})
	}
	for u := range l.uris {
		if changed[u] {
			l.sess.notify(methodResourceUpdated, map[string]any{"_meta": meta, "uri": u})
		}
	}
}

func (s *server) hasFeature(capability string) bool {
	for _, f := range s.features {
		if f.capability == capability {
			return true
		}
	}
	return false
}

type listenEnd struct {
	modernFields
}

// listen acknowledges, then holds the request open until it is cancelled
// or the server ends.
func (s *server) listen(ctx context.Context, c *call) (any, error) {
	var p listenParams
	if err := bind(c, &p); err != nil {
		return nil, err
	}
	if n := len(p.Notifications.ResourceSubscriptions); n > maxSubscriptions {
		return nil, errorf(codeInvalidParams, "Invalid params: params.notifications.resourceSubscriptions has %d URIs, more than the %d one listen may hold", n, maxSubscriptions)
	}
	id := requestID(ctx)
	// Only what the declared capabilities promise is honoured: an agent
	// that is not watched never changes, declares no listChanged or
	// subscribe, and must not acknowledge events it will never send
	// (docs/protocol.md §6, §11).
	honoured := listenWants{
		ToolsListChanged:     p.Notifications.ToolsListChanged && s.declared("tools.listChanged"),
		PromptsListChanged:   p.Notifications.PromptsListChanged && s.declared("prompts.listChanged"),
		ResourcesListChanged: p.Notifications.ResourcesListChanged && s.declared("resources.listChanged"),
	}
	if s.declared("resources.subscribe") {
		honoured.ResourceSubscriptions = p.Notifications.ResourceSubscriptions
	}
	l := &listen{sess: c.sess, id: id, wants: honoured, uris: map[string]bool{}, done: make(chan struct{})}
	for _, u := range honoured.ResourceSubscriptions {
		l.uris[u] = true
	}
	if ok, err := c.sess.addListen(l); !ok {
		if err != nil {
			return nil, err
		}
		return nil, ctx.Err()
	}
	defer c.sess.dropListen(l)
	c.sess.notify(methodListenAcked, map[string]any{"_meta": map[string]any{metaSubscriptionID: id}, "notifications": honoured})
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return &listenEnd{modernFields{Meta: map[string]any{metaSubscriptionID: id}}}, nil
	}
}
