package loader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/agentfile"
)

// TestNoRescan changes the file under an Agent pinned with
// Options.NoRescan: a body whose bytes still match the scan is served, one
// that does not fails with ErrStale (and ErrChanged), and the Agent never
// re-scans, whatever the change.
func TestNoRescan(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		// want maps a skill to its body; "" means the read must be stale.
		want map[string]string
	}{
		{
			name:   "unchanged",
			change: func(*testing.T, string) {},
			want:   map[string]string{"alpha": "alpha body one", "beta": "beta body two"},
		},
		{
			name: "edited in place, same size",
			change: func(t *testing.T, p string) {
				writeInPlace(t, p, strings.Replace(changeBase, "beta body two", "beta BODY TWO", 1))
			},
			want: map[string]string{"alpha": "alpha body one", "beta": ""},
		},
		{
			// alpha's span still holds its scanned bytes (the new text
			// only goes on after them), so it is still that version's body.
			name: "grown in place, later bodies shifted",
			change: func(t *testing.T, p string) {
				writeInPlace(t, p, strings.Replace(changeBase, "alpha body one", "alpha body one, longer", 1))
			},
			want: map[string]string{"alpha": "alpha body one", "beta": ""},
		},
		{
			name: "truncated inside a body",
			change: func(t *testing.T, p string) {
				if err := os.Truncate(p, int64(len(changeBase)-5)); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{"alpha": "alpha body one", "beta": ""},
		},
		{
			name: "replaced by rename",
			change: func(t *testing.T, p string) {
				replace(t, p, strings.Replace(changeBase, "beta body two", "beta replaced", 1)+"@plane z=3 label=gamma\ngamma\n")
			},
			want: map[string]string{"alpha": "alpha body one", "beta": "beta body two"},
		},
		{
			name: "unlinked",
			change: func(t *testing.T, p string) {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{"alpha": "alpha body one", "beta": "beta body two"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeAgent(t, changeBase)
			a := openWith(t, p, &Options{NoRescan: true, Recheck: -1})
			before := a.Version()
			tt.change(t, p)
			for skill, want := range tt.want {
				got, err := a.Body(bg, skill)
				if want != "" {
					if err != nil || got != want {
						t.Errorf("Body(%s) = %q, %v; want %q", skill, got, err, want)
					}
					continue
				}
				if !errors.Is(err, ErrStale) || !errors.Is(err, ErrChanged) {
					t.Errorf("Body(%s) = %q, %v; want ErrStale and ErrChanged", skill, got, err)
				} else if msg := err.Error(); !strings.Contains(msg, p) || !strings.Contains(msg, "changed since this version was loaded") {
					t.Errorf("Body(%s) error %q does not name the file and say it changed since it was loaded", skill, msg)
				}
			}
			if _, err := a.Skill("gamma"); err == nil {
				t.Error("a skill of the new version is served")
			}
			if a.current().gen != 1 || a.Version() != before {
				t.Errorf("generation %d, version %+v; want the first scan, %+v", a.current().gen, a.Version(), before)
			}
		})
	}
}

// TestNoRescanManifest: reads that gather several bodies fail whole when
// one of them is stale.
func TestNoRescanManifest(t *testing.T) {
	p := writeAgent(t, changeBase)
	a := openWith(t, p, &Options{NoRescan: true})
	writeInPlace(t, p, strings.Replace(changeBase, "Identity text.", "Identity TEXT.", 1))
	if m, err := a.Manifest(bg); !errors.Is(err, ErrStale) {
		t.Fatalf("Manifest = %+v, %v; want ErrStale", m, err)
	}
	if _, err := a.IdentityBody(bg); !errors.Is(err, ErrStale) {
		t.Fatalf("IdentityBody: %v; want ErrStale", err)
	}
}

func sha(text string) string {
	s := sha256.Sum256([]byte(text))
	return hex.EncodeToString(s[:])
}

// TestVersion: the version names the scanned bytes; a touch or a rewrite
// with the same bytes changes the stat fields but not SHA256, which is how
// a reload tells that nothing changed.
func TestVersion(t *testing.T) {
	other := strings.Replace(changeBase, "beta body two", "beta body 2", 1)
	tests := []struct {
		name     string
		change   func(t *testing.T, path string)
		wantSHA  string
		sameFile bool // same device and inode as before
	}{
		{
			name: "touched",
			change: func(t *testing.T, p string) {
				when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
				if err := os.Chtimes(p, when, when); err != nil {
					t.Fatal(err)
				}
			},
			wantSHA: sha(changeBase), sameFile: true,
		},
		{
			name:    "same bytes by rename",
			change:  func(t *testing.T, p string) { replace(t, p, changeBase) },
			wantSHA: sha(changeBase),
		},
		{
			name:    "other bytes in place",
			change:  func(t *testing.T, p string) { writeInPlace(t, p, other) },
			wantSHA: sha(other), sameFile: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeAgent(t, changeBase)
			first := openWith(t, p, &Options{NoRescan: true}).Version()
			if first.SHA256 != sha(changeBase) || first.Size != int64(len(changeBase)) || first.Inode == 0 {
				t.Fatalf("Version = %+v; want the SHA-256 and size of the file and its inode", first)
			}
			tt.change(t, p)
			v := openWith(t, p, &Options{NoRescan: true}).Version()
			if v.SHA256 != tt.wantSHA {
				t.Errorf("SHA256 %s, want %s", v.SHA256, tt.wantSHA)
			}
			if v == first {
				t.Error("the version did not change at all")
			}
			if same := v.Dev == first.Dev && v.Inode == first.Inode; same != tt.sameFile {
				t.Errorf("same file %v, want %v", same, tt.sameFile)
			}
		})
	}
}

// TestOpenStable drives OpenStable with a hook that runs between each scan
// and the stat that checks it, so "the file changed during the scan" is
// made to happen, not waited for.
func TestOpenStable(t *testing.T) {
	next := strings.Replace(changeBase, "beta body two", "beta body two, next", 1)
	tests := []struct {
		name    string
		text    string // "" leaves the path missing
		dir     bool   // the path is a directory
		changes int    // how many scans the hook changes the file after (-1: all)
		// want is beta's body; otherwise the error wraps wantErr.
		want      string
		wantErr   error
		wantParse bool // the error is the scan's *agentfile.ParseError
		wantScans int
	}{
		{name: "quiet file", text: changeBase, want: "beta body two", wantScans: 1},
		{name: "changed during the first scan", text: changeBase, changes: 1, want: "beta body two, next", wantScans: 2},
		{name: "changed during all but the last scan", text: changeBase, changes: 2, want: "beta body two", wantScans: 3},
		{name: "changed during every scan", text: changeBase, changes: -1, wantErr: ErrUnsettled, wantScans: 3},
		{name: "missing", wantErr: fs.ErrNotExist},
		{name: "directory", dir: true, wantErr: ErrNotRegular, wantScans: 1},
		{name: "broken and holding still", text: "---\n3md: 1.0\n---\n@plane label=no-z\n", wantParse: true, wantScans: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "agent.3md")
			switch {
			case tt.dir:
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
			case tt.text != "":
				writeInPlace0(t, p, tt.text)
			}
			scans := 0
			stableHook = func() {
				scans++
				if tt.changes < 0 || scans <= tt.changes {
					// Alternate the length, so the change shows in the
					// size whatever the timestamp granularity.
					text := next
					if scans%2 == 0 {
						text = changeBase
					}
					writeInPlace(t, p, text)
				}
			}
			defer func() { stableHook = nil }()
			a, err := OpenStable(p, &Options{NoRescan: true, Settle: 20 * time.Millisecond, StableTries: 3})
			if scans != tt.wantScans {
				t.Errorf("%d scans, want %d", scans, tt.wantScans)
			}
			if tt.wantParse {
				var pe *agentfile.ParseError
				if !errors.As(err, &pe) || pe.Name != agentfile.MissingPlanePosition {
					t.Fatalf("OpenStable: %v; want the scan's ParseError", err)
				}
				return
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("OpenStable: %v; want %v", err, tt.wantErr)
				}
				if errors.Is(tt.wantErr, ErrUnsettled) && !strings.Contains(err.Error(), "retry when the write is done") {
					t.Errorf("error %q does not say what to do", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if got := mustBody(t, a, "beta"); got != tt.want {
				t.Fatalf("Body = %q, want %q", got, tt.want)
			}
			if got, want := a.Version().SHA256, sha(changeBase); tt.changes%2 == 1 && got != sha(next) || tt.changes%2 == 0 && got != want {
				t.Fatal("the version is not the file as it settled")
			}
		})
	}
}

// writeInPlace0 creates path with text.
func writeInPlace0(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNoRescanKeepsErrors: a pinned agent reports what an unpinned one
// does for a skill it lacks (the error of the read, not an empty body).
func TestNoRescanKeepsErrors(t *testing.T) {
	a, err := Open("../examples/devtools.3md", &Options{NoRescan: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	body, err := a.Body(context.Background(), "no-such-skill")
	var ue *UnknownSkillError
	if !errors.As(err, &ue) || body != "" {
		t.Errorf("Body(no-such-skill) = %q, %v; want an UnknownSkillError", body, err)
	}
	if _, err := a.Resolve(context.Background(), "no-such-skill"); !errors.As(err, &ue) {
		t.Errorf("Resolve(no-such-skill): %v", err)
	}
}
