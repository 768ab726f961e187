package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/agentfile"
)

func TestBodies(t *testing.T) {
	tests := []struct {
		name, text, skill, want string
	}{
		{
			name: "vector", text: "", skill: "cite",
			want: "# Skill: cite\nAttach a verifiable source to each claim.",
		},
		{
			name:  "crlf normalised, lone cr kept",
			text:  "---\r\n3md: 1.0\r\ntitle: T\r\n---\r\n@plane z=0 kind=identity label=T\r\nid\r\n@plane z=1 label=s\r\n\r\n  line one\r\nlone\rcr\r\n\r\nlast\r\r\n\r\n  \r\n",
			skill: "s",
			want:  "  line one\nlone\rcr\n\nlast\r",
		},
		{
			name: "leading and trailing blank lines trimmed", skill: "s",
			text: head + "@plane z=1 label=s\n\n \t\n  body\n\n\t\n@plane z=2 label=t\nt\n",
			want: "  body",
		},
		{
			name: "empty body", skill: "s",
			text: head + "@plane z=1 label=s\n\n@plane z=2 label=t\nt\n",
			want: "",
		},
		{
			name: "fenced directive stays body", skill: "s",
			text: head + "@plane z=1 label=s\n```\n@plane z=9\n```\n",
			want: "```\n@plane z=9\n```",
		},
		{
			name: "no trailing newline", skill: "s",
			text: head + "@plane z=1 label=s\nend",
			want: "end",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTextOrDeps(t, tt.text)
			if got := mustBody(t, a, tt.skill); got != tt.want {
				t.Fatalf("Body = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIdentityBody(t *testing.T) {
	a := openPath(t, vector("valid-fallback-identity.3md"))
	got, err := a.IdentityBody(bg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "# Fallback\nNo plane is marked") || !strings.HasSuffix(got, "(fallback identity).") {
		t.Fatalf("IdentityBody = %q", got)
	}
}

const changeBase = head +
	"@plane z=1 label=alpha\nalpha body one\n\n" +
	"@plane z=2 label=beta\nbeta body two\n"

// TestBodyAfterChange edits, truncates and replaces the file under an open
// Agent; each read must return the body as the file now has it (after one
// re-scan), never a body that differs from what was scanned.
func TestBodyAfterChange(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		skill  string
		want   string // "" with wantErr
		// wantUnknown: the skill is gone after the change.
		wantUnknown bool
	}{
		{
			name: "edited in place, same size",
			change: func(t *testing.T, p string) {
				writeInPlace(t, p, strings.Replace(changeBase, "beta body two", "beta BODY TWO", 1))
			},
			skill: "beta", want: "beta BODY TWO",
		},
		{
			name: "edited in place, grown",
			change: func(t *testing.T, p string) {
				writeInPlace(t, p, strings.Replace(changeBase, "alpha body one", "alpha body one, now longer", 1))
			},
			skill: "beta", want: "beta body two",
		},
		{
			name: "truncated inside a body",
			change: func(t *testing.T, p string) {
				if err := os.Truncate(p, int64(len(changeBase)-5)); err != nil {
					t.Fatal(err)
				}
			},
			skill: "beta", want: "beta body",
		},
		{
			name: "truncated before the plane",
			change: func(t *testing.T, p string) {
				if err := os.Truncate(p, int64(strings.Index(changeBase, "@plane z=2"))); err != nil {
					t.Fatal(err)
				}
			},
			skill: "beta", wantUnknown: true,
		},
		{
			name: "replaced by rename",
			change: func(t *testing.T, p string) {
				replace(t, p, strings.Replace(changeBase, "alpha body one", "alpha replaced", 1))
			},
			skill: "alpha", want: "alpha replaced",
		},
		{
			name: "replaced by rename, same bytes elsewhere",
			change: func(t *testing.T, p string) {
				replace(t, p, changeBase+"\n@plane z=3 label=gamma\ngamma\n")
			},
			skill: "gamma", want: "gamma",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeAgent(t, changeBase)
			a := openEager(t, p)
			mustBody(t, a, "alpha")
			tt.change(t, p)
			got, err := a.Body(bg, tt.skill)
			if tt.wantUnknown {
				var u *UnknownSkillError
				if !errors.As(err, &u) {
					t.Fatalf("Body = %q, %v; want UnknownSkillError", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Body = %q, %v; want %q", got, err, tt.want)
			}
			if a.current().gen != 2 {
				t.Fatalf("generation %d after one change, want 2", a.current().gen)
			}
		})
	}
}

// writeInPlace rewrites the file's bytes without changing its inode.
func writeInPlace(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// replace puts a new file at path by rename, as editors and deploys do.
func replace(t *testing.T, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "next.tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestBrokenEdits(t *testing.T) {
	broken := "---\n3md: 1.0\n---\n@plane label=no-z\n"
	t.Run("rename to a broken file keeps serving the last good agent", func(t *testing.T) {
		p := writeAgent(t, changeBase)
		a := openEager(t, p)
		replace(t, p, broken)
		for range 2 { // the second read must not re-parse (cached failure)
			if got := mustBody(t, a, "beta"); got != "beta body two" {
				t.Fatalf("Body = %q", got)
			}
		}
		if a.failed == nil {
			t.Fatal("the failed re-scan was not recorded")
		}
		replace(t, p, strings.Replace(changeBase, "beta body two", "beta fixed", 1))
		if got := mustBody(t, a, "beta"); got != "beta fixed" {
			t.Fatalf("after the fix, Body = %q", got)
		}
	})
	t.Run("in-place broken edit is an error, never the new bytes", func(t *testing.T) {
		p := writeAgent(t, changeBase)
		a := openEager(t, p)
		writeInPlace(t, p, broken+strings.Repeat("x", len(changeBase)))
		got, err := a.Body(bg, "beta")
		if !errors.Is(err, ErrChanged) {
			t.Fatalf("Body = %q, %v; want ErrChanged", got, err)
		}
		var pe *agentfile.ParseError
		if !errors.As(err, &pe) || pe.Name != agentfile.MissingPlanePosition {
			t.Fatalf("err = %v; want it to carry the re-scan's ParseError", err)
		}
	})
	t.Run("file still changing after the re-scan", func(t *testing.T) {
		p := writeAgent(t, changeBase)
		a := openEager(t, p)
		n := 0
		a.afterRescan = func() {
			n++
			writeInPlace(t, p, strings.Replace(changeBase, "beta body two", fmt.Sprintf("beta body %03d", n), 1))
		}
		writeInPlace(t, p, strings.Replace(changeBase, "beta body two", "beta body 222", 1))
		got, err := a.Body(bg, "beta")
		if !errors.Is(err, ErrChanged) {
			t.Fatalf("Body = %q, %v; want ErrChanged", got, err)
		}
		if n != 1 {
			t.Fatalf("%d re-scans, want exactly one", n)
		}
	})
}

// TestConcurrentReadsDuringReplace reads bodies from many goroutines while
// the file is replaced: every body returned must be one of the versions
// written, whole (run with -race).
func TestConcurrentReadsDuringReplace(t *testing.T) {
	p := writeAgent(t, changeBase)
	a := openEager(t, p)
	versions := map[string]bool{"beta body two": true}
	var texts []string
	for _, v := range []string{"beta v1", "beta version two", "beta 3"} {
		versions[v] = true
		texts = append(texts, strings.Replace(changeBase, "beta body two", v, 1))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				got, err := a.Body(bg, "beta")
				if err != nil && !errors.Is(err, ErrChanged) {
					errs <- err
					return
				}
				if err == nil && !versions[got] {
					errs <- errors.New("served a body no version had: " + got)
					return
				}
			}
		}()
	}
	for i := range 30 {
		replace(t, p, texts[i%len(texts)])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRecheckInterval: with a positive Recheck, a file replaced by rename is
// noticed on the first read after the interval, and until then the old
// bytes are served (still verified).
func TestRecheckInterval(t *testing.T) {
	p := writeAgent(t, changeBase)
	a := openWith(t, p, &Options{Recheck: 40 * time.Millisecond})
	mustBody(t, a, "alpha")
	time.Sleep(50 * time.Millisecond)
	mustBody(t, a, "alpha") // a check happens here; the next is 40 ms away
	replace(t, p, strings.Replace(changeBase, "alpha body one", "alpha replaced", 1))
	if got := mustBody(t, a, "alpha"); got != "alpha body one" && got != "alpha replaced" {
		t.Fatalf("Body = %q", got)
	}
	time.Sleep(50 * time.Millisecond)
	if got := mustBody(t, a, "alpha"); got != "alpha replaced" {
		t.Fatalf("after the interval, Body = %q", got)
	}
}
