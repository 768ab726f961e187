package mcp

import (
	"strconv"
	"strings"
	"sync"
)

// Change streams: the standing event streams of handshake-era clients on
// a stateless transport (Streamable HTTP's GET, docs/protocol.md §12).
// Such a stream belongs to no session: the server cannot know which
// client it is, what it listed or what it subscribed to, so it carries the
// one kind of event that needs none of that, the list_changed of every
// list capability that declares listChanged, after each reload.
//
// A reload only marks each stream changed (a channel of one slot, filled
// without blocking); the stream's own goroutine writes the events when it
// next can. A client that reads slowly, or not at all, therefore holds one
// pending mark however many reloads pass, never a queue: list_changed
// says "list again", and saying it once after many reloads says it all.

// changeStream is one open change stream.
type changeStream struct {
	// changed holds one mark while a reload waits to be announced.
	changed chan struct{}
	// done is closed when the server stops (Server.Close): the stream
	// ends.
	done chan struct{}
}

// poke marks the stream changed; a mark already pending absorbs this one.
func (cs *changeStream) poke() {
	select {
	case cs.changed <- struct{}{}:
	default:
	}
}

// changeStreams is the server's set of open change streams.
type changeStreams struct {
	mu      sync.Mutex
	open    map[*changeStream]bool
	stopped bool // the server stopped: no stream opens any more
}

// add registers a new stream; nil once the server has stopped.
func (c *changeStreams) add() *changeStream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	if c.open == nil {
		c.open = map[*changeStream]bool{}
	}
	cs := &changeStream{changed: make(chan struct{}, 1), done: make(chan struct{})}
	c.open[cs] = true
	return cs
}

func (c *changeStreams) remove(cs *changeStream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.open, cs)
}

// pokeAll marks every open stream changed (a reload swapped a generation in).
func (c *changeStreams) pokeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for cs := range c.open {
		cs.poke()
	}
}

// stop ends every open stream and refuses new ones.
func (c *changeStreams) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for cs := range c.open {
		close(cs.done)
	}
	c.open = nil
}

// count is the number of open streams (for tests).
func (c *changeStreams) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// versionTagLen is how much of the content hash a tag keeps: 64 bits
// tell generations apart, and keep event ids short.
const versionTagLen = 16

// eventID is a change stream's event id: the generation tag, the stream's
// nonce and the event's number on it, so ids are unique across the
// streams of one client (the transport's rule) and still say which
// generation the client last heard of.
func eventID(tag, nonce string, seq uint64) string {
	return tag + "." + nonce + "." + strconv.FormatUint(seq, 10)
}

// missedReload reports whether a client that last saw the event lastID
// (its Last-Event-ID header) has not heard of the generation tagged tag. An
// id of another server, or of no generation, counts as missed: one
// list_changed too many costs a listing, one too few leaves a client on
// an old list.
func missedReload(lastID, tag string) bool {
	if lastID == "" {
		return false
	}
	seen, _, _ := strings.Cut(lastID, ".")
	return seen != tag || tag == ""
}

// listChangedMethod is the notification a list capability sends.
func listChangedMethod(capability string) string {
	return "notifications/" + capability + "/list_changed"
}
