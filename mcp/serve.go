package mcp

import (
	"context"
	"errors"
	"io"
	"time"
)

// Serve speaks MCP over newline-delimited JSON-RPC on in and out until in
// reaches EOF (it returns once every in-flight response is written, and,
// with an Opener source, once the agent has loaded: nil, or the load error) or
// ctx is cancelled (it returns nil at once; a Read blocked on in is left to
// the process's exit). A read or write failure is returned. The agent
// (from an Opener source) and the routing index load in the background: the
// handshake is answered before they are ready, and requests that need them
// wait. It is the stdio transport over the shared server: one connection,
// one session.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts *Options) error {
	if opts == nil {
		return errors.New("mcp: Serve needs Options with a Source (mcp.Loaded or mcp.Opener)")
	}
	if err := opts.Source.check(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newServer(opts)
	if err := s.openWatch(); err != nil {
		return err
	}
	stop := s.start(ctx)
	defer stop()

	c := newConn(ctx, s, in, out)
	if testHooks.conn != nil {
		testHooks.conn(opts, c)
	}
	s.attach(c.sess)
	defer s.detach(c.sess)
	go c.writeLoop()
	go c.readLoop()
	select {
	case <-c.writerDone: // every answer written after EOF, or a write failed
	case <-c.abandoned: // after EOF, nothing moved for a grace period
	case <-ctx.Done():
	}
	c.shutdown()
	if err := c.err(); err != nil {
		return err
	}
	// An agent still loading at EOF is waited for, so a broken file is
	// reported (and the exit status says so) even when no request needed it.
	select {
	case <-s.ready:
		if s.cur.Load() != nil {
			return nil // a failed first load fixed since by a reload
		}
		return s.loadErr
	case <-ctx.Done():
		return nil
	}
}

// newServer builds the server for opts, with its defaults applied
// (Options.withDefaults); opts.Source has been checked.
func newServer(opts *Options) *server {
	o := opts.withDefaults()
	s := &server{
		opts:         o,
		ready:        make(chan struct{}),
		log:          o.Logger,
		methods:      map[string]methodSpec{},
		firstRouting: newRouterState(),
		sessions:     map[*session]bool{},
		reloads:      o.Source.Changes.signals, // or the watcher's, once openWatch starts it
	}
	s.register(servedFeatures...)
	if testHooks.server != nil {
		testHooks.server(opts, s)
	}
	if a := o.Source.agent; a != nil {
		s.loaded(a, false, nil)
	}
	return s
}

// start loads the agent (from an Opener source) and builds its routing index
// in the background, and logs the file's validation findings. The
// returned stop cancels what still runs and releases the agent generation in
// force; it waits a bounded time for the findings to be logged and for an
// index build to stop.
func (s *server) start(parent context.Context) (stop func()) {
	outer := parent // cancelled by the caller (a signal), not by stop
	ctx, cancel := context.WithCancel(parent)
	if s.opts.Source.agent == nil {
		go s.open(ctx)
	}
	findingsDone := make(chan struct{})
	go func() {
		defer close(findingsDone)
		// outer, not ctx: the server's own end must not skip the findings.
		if err := s.awaitLoad(outer); err == nil && outer.Err() == nil {
			// Validating a large agent takes a processor for tens of
			// milliseconds: not while the first routing index, which the
			// first route waits for, is being built.
			select {
			case <-s.firstRouting.ready:
			case <-time.After(findingsDefer):
			case <-outer.Done():
			}
			if v := s.acquire(); v != nil {
				s.logFindings(v.agent)
				v.release()
			}
		}
	}()
	go s.buildFirstIndex(ctx)
	// The tools' schemas are derived off the request path, as the index
	// is built, so the first tools/list or tools/call finds them ready.
	go func() {
		for _, t := range toolTable {
			t.derived()
		}
	}()
	s.startWatch(ctx)
	return func() {
		// Open subscriptions/listen requests end gracefully: answered, not
		// dropped.
		s.eachSession(func(sess *session) { sess.eachListen(func(l *listen) { l.stop() }) })
		s.changes.stop()
		cancel() // stops a build still running
		if s.firstRouting != nil {
			s.firstRouting.closeWhenBuilt()
		}
		s.stopWatch()
		// The validation findings are logged before the server returns,
		// so an operator sees them even when the client leaves at once; a
		// cancelled server does not wait for them long. They are waited
		// for before the generation is retired: findings still waiting for
		// the first index (findingsDefer) would find no generation to read.
		select {
		case <-findingsDone:
		case <-time.After(findingsWait):
		}
		select {
		case <-s.ready:
			if v := s.cur.Swap(nil); v != nil {
				v.retire()
			}
		default:
			// Still opening: the opener closes what it opens once it sees
			// the cancelled context (closeLate).
			go func() {
				<-s.ready
				if v := s.cur.Swap(nil); v != nil {
					v.retire()
				}
			}()
		}
	}
}
