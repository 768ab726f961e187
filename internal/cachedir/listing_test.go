package cachedir

import (
	"strings"
	"testing"
)

func TestLabel(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	for _, tt := range []struct {
		name string
		e    Entry
		want string
	}{
		{"stamp", Entry{Key: "stamp-0123456789abcdef-k1", Stamp: true}, "stamp 0123456789ab  (an agent file's size and times, mapped to its content hash)"},
		{"unrecorded", Entry{Key: hash}, "abababababab  (agent not recorded: cached by an earlier agent3md)"},
		{"recorded", Entry{Key: hash, Sources: []Source{{Path: "/a/x.3md", Name: "x"}, {Path: "/b/y.3md", Name: "y"}}}, "abababababab  x (/a/x.3md)"},
		{"short key", Entry{Key: "abc"}, "abc  (agent not recorded: cached by an earlier agent3md)"},
	} {
		if got := tt.e.Label(); got != tt.want {
			t.Errorf("%s: Label() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestWriteList: one line an entry, least recently used first (recording
// b's agents used it last), the agents an entry also serves under it, and
// the total of what counts.
func TestWriteList(t *testing.T) {
	root, _ := cache(t)
	b := strings.Repeat("b", 64)
	Record(root, b, Source{Path: "/old/b.3md", Name: "old-b"})
	Record(root, b, Source{Path: "/new/b.3md", Name: "new-b"})
	var out strings.Builder
	if err := WriteList(&out, root); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("want 4 entries, one also-line and the total, got:\n%s", out.String())
	}
	for i, want := range []string{"stamp 0123", "aaaaaaaaaaaa  (agent not recorded", "cccccccccccc", "bbbbbbbbbbbb  new-b (/new/b.3md)", "also old-b (/old/b.3md)", "total, 4 entries in " + root} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to hold %q", i, lines[i], want)
		}
	}
}

// TestWritePruned: what was removed, then what is left and why pruning
// stopped there, or that the cache is empty.
func TestWritePruned(t *testing.T) {
	root, _ := cache(t)
	removed, err := Prune(root, 2500, "")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	WritePruned(&out, root, "2500B", removed)
	got := out.String()
	for _, want := range []string{"removed       10 B  stamp 0123-k1", "removed    1.1 KiB  aaaaaaaaaaaa", "removed 2 entries (", "; kept 2 entries (", "they fit in --max-size 2500B"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	removed, _ = Prune(root, 0, "")
	out.Reset()
	WritePruned(&out, root, "0", removed)
	if !strings.HasSuffix(out.String(), "; the cache is empty\n") || !strings.Contains(out.String(), "removed 2 entries") {
		t.Errorf("emptied cache:\n%s", out.String())
	}
	if err := WriteList(&out, root+"/\x00"); err == nil {
		t.Errorf("a root that cannot be read lists without an error")
	}
}
