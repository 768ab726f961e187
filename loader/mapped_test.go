package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mappedAgent writes an agent of n skills whose bodies are each about
// 3 KB (so the file spans many pages) and opens it pinned: a pinned agent
// never re-scans, so its reads go to the first scan's mapping.
func mappedAgent(t *testing.T, n int) (*Agent, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big.3md")
	var b strings.Builder
	b.WriteString(head)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "@plane z=%d label=s%d kind=skill triggers=\"s%d\"\n%s\n\n", i, i, i, strings.Repeat(fmt.Sprintf("Step %d: do the thing.\n", i), 140))
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(p, &Options{NoRescan: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, p
}

// TestMappedBodies: bodies read from the mapping are the bodies.
func TestMappedBodies(t *testing.T) {
	a, _ := mappedAgent(t, 20)
	if a.current().mem == nil {
		t.Skip("this system does not map files; bodies are read with pread")
	}
	for i := 1; i <= 20; i++ {
		body, err := a.Body(bg, fmt.Sprintf("s%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat(fmt.Sprintf("Step %d: do the thing.\n", i), 140); body != strings.TrimSpace(want) && body != want {
			t.Fatalf("s%d: body %.80q…, want %.80q…", i, body, want)
		}
	}
}

// TestMappedFileTruncated: a file cut short under its mapping makes the
// bodies past the cut stale errors, as a short pread does, whether the
// read faults (a page wholly past the end) or finds zeros (the last
// page's tail): never a crash.
func TestMappedFileTruncated(t *testing.T) {
	for _, keep := range []int64{0, 10_000, 33_333} {
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			a, p := mappedAgent(t, 20)
			if a.current().mem == nil {
				t.Skip("this system does not map files")
			}
			if err := os.Truncate(p, keep); err != nil {
				t.Fatal(err)
			}
			_, err := a.Body(bg, "s20")
			if !errors.Is(err, ErrStale) || !errors.Is(err, ErrChanged) {
				t.Fatalf("body of the last skill after truncating to %d bytes: %v, want a stale-file error", keep, err)
			}
			if !strings.Contains(err.Error(), "reload the file") {
				t.Errorf("the error does not say what to do: %v", err)
			}
		})
	}
}
