package skillsync

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// watcher runs Watch in the background and hands over each pass.
type watcher struct {
	passes chan passResult
	done   chan error
	cancel context.CancelFunc
}

type passResult struct {
	sum *Summary
	err error
}

func startWatch(t *testing.T, src *Source, dir string, interval time.Duration) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{passes: make(chan passResult, 64), done: make(chan error, 1), cancel: cancel}
	go func() {
		w.done <- Watch(ctx, src, &Options{Dir: dir}, &WatchOptions{Interval: interval, OnPass: func(s *Summary, err error) {
			w.passes <- passResult{s, err}
		}})
	}()
	t.Cleanup(func() { w.stop(t) })
	return w
}

// next waits for the next pass that satisfies ok, failing after a
// generous deadline (the machine may be loaded; the latency is
// measured by the benchmark script, not here).
func (w *watcher) next(t *testing.T, what string, ok func(passResult) bool) passResult {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case p := <-w.passes:
			if ok(p) {
				return p
			}
		case <-deadline.C:
			t.Fatalf("no pass where %s within 30s", what)
		}
	}
}

func (w *watcher) stop(t *testing.T) {
	w.cancel()
	select {
	case err := <-w.done:
		if err != nil {
			t.Errorf("Watch: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("Watch did not stop within 30s of its context's end")
	}
	w.done <- nil
}

func updated(name string) func(passResult) bool {
	return func(p passResult) bool { return p.err == nil && join(p.sum.Updated) == name }
}

// A handshake-era stdio server's list_changed starts a pass at once: the
// interval is an hour, so nothing else could.
func TestWatchLegacyNotifications(t *testing.T) {
	lib := library(3)
	for _, files := range lib {
		delete(files, "assets/logo.bin") // JSON carries text only
	}
	cfgPath := filepath.Join(t.TempDir(), "fake.json")
	cfg := fakeConfig{Mode: "manifest", Skills: clone(lib)}
	save := func() {
		b, _ := json.Marshal(cfg)
		if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save()
	t.Setenv("SKILLSYNC_FAKE_STDIO", cfgPath)
	dir := t.TempDir()
	w := startWatch(t, &Source{Command: []string{os.Args[0]}}, dir, time.Hour)
	first := w.next(t, "the first pass is done", func(p passResult) bool { return p.err == nil })
	if len(first.sum.Added) != 3 {
		t.Fatalf("first pass: %+v", first.sum)
	}
	pid, err := os.ReadFile(cfgPath + ".pid")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(string(pid))
	cfg.Skills["skill-02"]["SKILL.md"] = skillText("skill-02", "v2")
	save()
	if err := syscall.Kill(n, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	w.next(t, "skill-02 is updated", updated("skill-02"))
	lib["skill-02"]["SKILL.md"] = skillText("skill-02", "v2")
	sameFiles(t, dir, flat(lib))
}

// A server that offers no subscriptions (subscriptions/listen refused)
// is checked every interval.
func TestWatchInterval(t *testing.T) {
	f := newFake("ext", library(2))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	w := startWatch(t, &Source{URL: url}, dir, 20*time.Millisecond)
	w.next(t, "the first pass is done", func(p passResult) bool { return p.err == nil && len(p.sum.Added) == 2 })
	f.set(func(c *fakeConfig) { c.Skills["skill-01"]["SKILL.md"] = skillText("skill-01", "v2") })
	w.next(t, "skill-01 is updated", updated("skill-01"))
}

// A server that fails is dialed again, and the watch goes on once it is
// back.
func TestWatchReconnects(t *testing.T) {
	f := newFake("ext", library(2))
	var down atomic.Bool
	inner := f.serveHTTP(t)
	proxy := newProxy(t, inner, &down)
	dir := t.TempDir()
	w := startWatch(t, &Source{URL: proxy}, dir, 20*time.Millisecond)
	w.next(t, "the first pass is done", func(p passResult) bool { return p.err == nil })
	down.Store(true)
	w.next(t, "a pass fails", func(p passResult) bool { return p.err != nil })
	f.set(func(c *fakeConfig) { c.Skills["skill-00"]["SKILL.md"] = skillText("skill-00", "v2") })
	down.Store(false)
	w.next(t, "skill-00 is updated after the server is back", updated("skill-00"))
}

// newProxy forwards to url unless down is set, when it answers 503.
func newProxy(t *testing.T, url string, down *atomic.Bool) string {
	t.Helper()
	client := &http.Client{}
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, url, r.Body)
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}))
	return srv + "/mcp"
}

// A sync killed mid-way (SIGKILL: nothing of it runs after) leaves every
// skill folder as it was or fully updated, never a mix.
func TestSyncKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	f, url, dir, lib, v2 := syncedTwice(t)
	f.block = make(chan struct{})
	f.set(func(c *fakeConfig) { c.Skills, c.BlockAfter = clone(v2), f.reads+17 })
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SKILLSYNC_SYNC_URL="+url, "SKILLSYNC_SYNC_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for f.stalled() < 4 {
		select {
		case <-f.readSignal():
		case <-deadline.C:
			cmd.Process.Kill()
			t.Fatal("the child never stalled")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	neverMixed(t, dir, lib, v2)
	f.unblock()
	f.set(func(c *fakeConfig) { c.BlockAfter = 0 })
	mustSync(t, url, dir, nil)
	sameFiles(t, dir, flat(v2))
}
