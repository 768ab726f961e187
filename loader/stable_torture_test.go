package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tortureVersion is one text the torture writers save, with the body each
// skill has in it.
type tortureVersion struct {
	text   string
	bodies map[string]string
}

// tortureVersions makes n versions of one agent whose skills have the same
// names but bodies that name their version and differ in length, so every
// version puts each body at other offsets and a mix of two versions is a
// body no version has.
func tortureVersions(n, skills, lines int) []tortureVersion {
	out := make([]tortureVersion, n)
	for v := range out {
		var b strings.Builder
		b.WriteString(head)
		bodies := map[string]string{}
		for s := range skills {
			var body []string
			for i := range 2 + (v*5+s*3)%9*lines {
				body = append(body, fmt.Sprintf("version %d skill %d line %d", v, s, i))
			}
			name := fmt.Sprintf("s%d", s)
			bodies[name] = strings.Join(body, "\n")
			fmt.Fprintf(&b, "@plane z=%d label=%s\n%s\n\n", s+1, name, bodies[name])
		}
		out[v] = tortureVersion{text: b.String(), bodies: bodies}
	}
	return out
}

// saver writes text to path the way one kind of editor or tool does. It
// calls gap between two writes of one save, where the path shows a save in
// progress.
type saver func(path, text string, gap func()) error

var tortureSavers = []struct {
	name string
	save saver
}{
	{"truncate then write in pieces", func(path, text string, gap func()) error {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		piece := len(text)/8 + 1
		for i := 0; i < len(text); i += piece {
			gap()
			time.Sleep(50 * time.Microsecond)
			if _, err := f.WriteString(text[i:min(i+piece, len(text))]); err != nil {
				return err
			}
		}
		return nil
	}},
	{"overwrite in place", func(path, text string, gap func()) error {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte(text), 0); err != nil {
			return err
		}
		gap()
		return f.Truncate(int64(len(text)))
	}},
	{"write temp then rename", func(path, text string, gap func()) error {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}},
	{"unlink then recreate", func(path, text string, gap func()) error {
		if err := os.Remove(path); err != nil {
			return err
		}
		gap()
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		gap()
		_, err = f.WriteString(text)
		return err
	}},
}

// TestOpenStableTorture saves versions of a file in a loop, each kind of
// saver in turn, while readers OpenStable it with NoRescan and read every
// body. Every agent served must be one version the writer wrote, whole, and
// every body its body in that version; the only errors allowed are a stale
// body (ErrStale, ErrChanged) and a file that kept changing (ErrUnsettled).
//
// OpenStable cannot tell a save that pauses for longer than Settle from a
// finished one: if the writer itself stalled that long (a loaded machine can
// stop a thread for that), what readers saw is logged, not failed.
func TestOpenStableTorture(t *testing.T) {
	const (
		settle  = 30 * time.Millisecond
		readers = 2
	)
	// A change time is coarse by up to a clock tick (10 ms at worst), so a
	// reader can take a file as quiet after settle minus a tick.
	const stallAt = settle - 10*time.Millisecond
	versions := tortureVersions(6, 8, 40)
	bySHA := map[string]int{}
	for i, v := range versions {
		bySHA[sha(v.text)] = i
	}
	for _, kind := range tortureSavers {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "agent.3md")
			writeInPlace0(t, p, versions[0].text)
			var stalled atomic.Bool
			last := time.Now()
			gap := func() {
				if now := time.Now(); now.Sub(last) >= stallAt {
					stalled.Store(true)
				}
				last = time.Now()
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var mu sync.Mutex
			var problems []string
			var counts tortureCounts
			for range readers {
				wg.Go(func() {
					c, p := tortureRead(p, settle, versions, bySHA, stop)
					mu.Lock()
					defer mu.Unlock()
					problems = append(problems, p...)
					counts.add(c)
				})
			}
			// Bursts of saves, each followed by a quiet spell: a lone save,
			// a short burst, and one longer than OpenStable keeps trying
			// (5 tries of settle), so readers see every outcome.
			written, i := 0, 0
			saveNext := func() {
				written = 1 + i%(len(versions)-1)
				i++
				last = time.Now()
				if err := kind.save(p, versions[written].text, gap); err != nil {
					t.Fatal(err)
				}
			}
			for _, burst := range []time.Duration{0, settle, 11 * settle / 2} {
				for end := time.Now().Add(burst); ; runtime.Gosched() {
					saveNext()
					if !time.Now().Before(end) {
						break
					}
				}
				time.Sleep(2 * settle)
			}
			// Then saves about settle apart: readers that waited for the
			// file to settle scan it just as the next save begins, which
			// only the stat after the scan catches.
			for k := range 8 {
				saveNext()
				time.Sleep(settle - 6*time.Millisecond + time.Duration(k)*time.Millisecond)
			}
			time.Sleep(2 * settle)
			close(stop)
			wg.Wait()
			t.Logf("%+v", counts)
			for _, p := range problems {
				if stalled.Load() {
					t.Logf("the writer stalled for %v or more, so this is allowed: %s", stallAt, p)
				} else {
					t.Error(p)
				}
			}
			a, err := OpenStable(p, &Options{NoRescan: true, Settle: settle})
			if err != nil {
				t.Fatalf("after the writes: %v", err)
			}
			defer a.Close()
			if got := a.Version().SHA256; got != sha(versions[written].text) {
				t.Fatalf("after the writes, version %d is served, want %d", bySHA[got], written)
			}
		})
	}
}

type tortureCounts struct{ Opened, Bodies, Stale, Unsettled, Missing int }

func (c *tortureCounts) add(o tortureCounts) {
	c.Opened += o.Opened
	c.Bodies += o.Bodies
	c.Stale += o.Stale
	c.Unsettled += o.Unsettled
	c.Missing += o.Missing
}

// tortureRead opens and reads the file until stop closes, and returns what
// it did and every problem it saw.
func tortureRead(path string, settle time.Duration, versions []tortureVersion, bySHA map[string]int, stop <-chan struct{}) (c tortureCounts, problems []string) {
	for {
		select {
		case <-stop:
			return c, problems
		default:
		}
		a, err := OpenStable(path, &Options{NoRescan: true, Settle: settle})
		if errors.Is(err, ErrUnsettled) {
			c.Unsettled++
			continue
		}
		// An unlink-then-recreate save leaves no file for a while; on a
		// loaded machine the writer can be descheduled between the two
		// for longer than every try lasts. Finding no file is the truth
		// then (a server keeps its last version), never a torn read.
		if errors.Is(err, fs.ErrNotExist) {
			c.Missing++
			continue
		}
		if err != nil {
			problems = append(problems, "OpenStable: "+err.Error())
			continue
		}
		c.Opened++
		// Read every body twice, a moment apart, as a server keeps a
		// version while it serves: the second pass may meet a new save.
		problems = append(problems, checkVersion(a, versions, bySHA, &c)...)
		time.Sleep(settle / 5)
		problems = append(problems, checkVersion(a, versions, bySHA, &c)...)
		a.Close()
	}
}

// checkVersion reads every body of a and checks that a serves one whole
// version.
func checkVersion(a *Agent, versions []tortureVersion, bySHA map[string]int, c *tortureCounts) []string {
	v, ok := bySHA[a.Version().SHA256]
	if !ok {
		return []string{fmt.Sprintf("served a version no save wrote: %+v, skills %v", a.Version(), a.SkillNames())}
	}
	want := versions[v].bodies
	names := a.SkillNames()
	if len(names) != len(want) {
		return []string{fmt.Sprintf("version %d served with skills %v", v, names)}
	}
	var problems []string
	for _, name := range slices.Sorted(slices.Values(names)) {
		got, err := a.Body(bg, name)
		switch {
		case errors.Is(err, ErrStale) && errors.Is(err, ErrChanged):
			c.Stale++
		case err != nil:
			problems = append(problems, fmt.Sprintf("version %d, Body(%s): %v", v, name, err))
		case got != want[name]:
			problems = append(problems, fmt.Sprintf("version %d, Body(%s) = %q, want %q", v, name, got, want[name]))
		default:
			c.Bodies++
		}
	}
	return problems
}
