package skillsync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// Watching (docs/sync.md §6): a pass at once, then one each time the
// server says its resources changed — subscriptions/listen on a
// 2026-07-28 server, notifications/resources/list_changed and
// resources/updated (after resources/subscribe) on a handshake-era stdio
// server — and one every Interval whatever it says. A connection that
// fails is dialed again, waiting longer after each failure.

// WatchOptions configures Watch.
type WatchOptions struct {
	// Interval is the longest time between two passes (default
	// DefaultInterval): the fallback for a server that cannot notify.
	Interval time.Duration
	// MaxBackoff bounds the wait before dialing again (default
	// DefaultMaxBackoff); the first wait is a second.
	MaxBackoff time.Duration
	// OnPass receives each pass's summary, or why it failed.
	OnPass func(*Summary, error)
}

// Defaults of WatchOptions.
const (
	DefaultInterval   = time.Minute
	DefaultMaxBackoff = 30 * time.Second
)

// ackWait bounds the wait for a subscription's acknowledgement.
const ackWait = 10 * time.Second

// Watch keeps opts.Dir current until ctx ends, then returns nil once the
// pass under way has written the skill it was writing.
func Watch(ctx context.Context, src *Source, opts *Options, wopts *WatchOptions) error {
	o := opts.withDefaults()
	lim := o.Limits.withDefaults()
	var w WatchOptions
	if wopts != nil {
		w = *wopts
	}
	if w.Interval <= 0 {
		w.Interval = DefaultInterval
	}
	if w.MaxBackoff <= 0 {
		w.MaxBackoff = DefaultMaxBackoff
	}
	if w.OnPass == nil {
		w.OnPass = func(*Summary, error) {}
	}
	backoff := time.Second
	for {
		k, err := dial(ctx, src, &o, &lim)
		if err == nil {
			var passed bool
			passed, err = watchConn(ctx, k, src, &o, &lim, &w)
			k.close()
			if passed {
				backoff = time.Second
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		o.Logger.Warn("sync: connection lost; dialing again", "source", src.String(), "in", backoff, "err", err)
		w.OnPass(nil, err)
		if !waitFor(ctx, backoff) {
			return nil
		}
		backoff = min(2*backoff, w.MaxBackoff)
	}
}

// waitFor waits d unless ctx ends first (false).
func waitFor(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// watchConn runs passes over one connection until it fails or ctx ends;
// passed says at least one pass succeeded.
func watchConn(ctx context.Context, k *conn, src *Source, o *Options, lim *Limits, w *WatchOptions) (passed bool, err error) {
	events, stop, err := k.listen(ctx)
	if err != nil {
		return false, err
	}
	defer stop()
	subscribed := map[string]bool{}
	tick := time.NewTimer(0)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return passed, nil
		case <-k.c.Done():
			return passed, fmt.Errorf("the server closed the connection: %w", k.c.Err())
		case _, ok := <-events:
			if !ok {
				return passed, errors.New("the server ended the subscription")
			}
			drain(events)
		case <-tick.C:
		}
		start := time.Now()
		sum, perr := pass(ctx, k, src, o, lim)
		if ctx.Err() != nil && perr != nil {
			return passed, nil
		}
		if sum != nil {
			sum.Elapsed = time.Since(start)
		}
		w.OnPass(sum, perr)
		if perr != nil {
			return passed, perr
		}
		passed = true
		if err := k.subscribeAll(ctx, sum, subscribed, o.Workers); err != nil {
			return passed, err
		}
		tick.Reset(w.Interval)
	}
}

// drain empties a notification channel: one pass answers them all.
func drain(ch <-chan struct{}) {
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// listen opens the channel of change notices: a subscriptions/listen on a
// 2026-07-28 server (acknowledged before the first pass, so no change
// falls between), the handshake-era notifications otherwise. A server
// that refuses subscriptions/listen leaves the timer alone to notice.
func (k *conn) listen(ctx context.Context) (<-chan struct{}, func(), error) {
	if !k.s.Modern {
		return k.changed, func() {}, nil
	}
	sub, err := k.s.Listen(ctx, map[string]any{"resourcesListChanged": true})
	if err != nil {
		return nil, nil, err
	}
	stop := func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		sub.Close(cctx)
	}
	actx, cancel := context.WithTimeout(ctx, ackWait)
	defer cancel()
	select {
	case m, ok := <-sub.Events():
		if ok && m.Method == "notifications/subscriptions/acknowledged" {
			return forward(sub), stop, nil
		}
		if !ok {
			if ans, err := sub.Answer(); err == nil && ans.Error != nil {
				// No subscriptions here: the timer alone notices changes.
				return make(chan struct{}), func() {}, nil
			}
			return nil, nil, fmt.Errorf("subscriptions/listen ended at once: %v", sub.Err())
		}
		return nil, nil, fmt.Errorf("subscriptions/listen: the first message is %s, not its acknowledgement", m.Method)
	case <-actx.Done():
		stop()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, errors.New("subscriptions/listen was not acknowledged in time")
	}
}

// forward turns a subscription's notifications into change notices; the
// channel closes when the subscription ends.
func forward(sub *mcpclient.Subscription) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for range sub.Events() {
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out
}

// subscribeAll asks a handshake-era stdio server to tell of changes to
// every synced skill's SKILL.md (resources/subscribe), once per URI;
// over HTTP a handshake-era server has no way to tell, so the timer
// notices.
func (k *conn) subscribeAll(ctx context.Context, sum *Summary, done map[string]bool, workers int) error {
	if k.s.Modern || !k.subscribe || k.c.Process() == nil {
		return nil
	}
	var uris []string
	for _, list := range [][]string{sum.Added, sum.Updated, sum.Unchanged} {
		for _, name := range list {
			if uri := sum.uris[name]; uri != "" && !done[uri] {
				uris = append(uris, uri)
			}
		}
	}
	var mu sync.Mutex
	return eachLimited(ctx, workers, uris, func(uri string) error {
		err := k.call(ctx, methodSubscribe, map[string]any{"uri": uri}, nil)
		if err != nil && !isUnknown(err) && !isMissingMethod(err) {
			return err
		}
		mu.Lock()
		done[uri] = true
		mu.Unlock()
		return nil
	})
}
