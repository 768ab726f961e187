//go:build linux

package export_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A race against export: while exports into DIR repeat, another process
// swaps DIR/<skill>/references between the real folder and a symbolic link
// to a folder outside DIR (docs/cli.md, export). Every check export makes
// by path comes too early to stop such a swap; only writing and removing
// through directories opened without following links does. The folder
// outside must stay byte for byte as it was, and every export the swap
// breaks must fail with an error that says what was found where.

// raceAgents are two versions of one agent. Exported in turn, each export
// writes into run-tests/references (the identity, which differs) and
// removes review-diff/references/search-code.md or writes it again (only
// the first version's review-diff links to search-code).
var raceAgents = [2]string{
	"---\n3md: 1\nagent: team\n---\n@plane z=0 kind=identity\nRules, version one.\n\n" +
		"@plane z=1 label=run-tests triggers=\"run tests\"\nRun the tests; see [[z=2]].\n\n" +
		"@plane z=2 label=search-code triggers=search\nSearch the code.\n\n" +
		"@plane z=3 label=review-diff triggers=review\nReview the diff; search with [[z=2]].\n",
	"---\n3md: 1\nagent: team\n---\n@plane z=0 kind=identity\nRules, version two.\n\n" +
		"@plane z=1 label=run-tests triggers=\"run tests\"\nRun the tests; see [[z=2]].\n\n" +
		"@plane z=2 label=search-code triggers=search\nSearch the code.\n\n" +
		"@plane z=3 label=review-diff triggers=review\nReview the diff alone.\n",
}

// clearRaceError is what an export broken by the swap may say: the path
// it met and what was wrong with it. The swap can also leave an older
// export's references/ in place, whose files then differ from the
// marker's digests: a file changed since export wrote it, which the
// ownership rules refuse to replace (folderwrite/ownership.go).
var clearRaceError = regexp.MustCompile(`(is a symbolic link; export never writes through one|exists and is not a (directory|regular file)|changed while it was written|changed here since 'agent3md export' wrote it|which 'agent3md export' did not write)`)

func TestExportRacingSymlinkSwap(t *testing.T) {
	for _, shape := range []struct {
		name   string
		folder string // the skill folder whose references/ is swapped
		victim string // a file outside DIR that export must never touch
	}{
		{"write through the link", "run-tests", "AGENT.md"},
		{"remove through the link", "review-diff", "search-code.md"},
	} {
		t.Run(shape.name, func(t *testing.T) {
			raceSwap(t, shape.folder, shape.victim)
		})
	}
}

func raceSwap(t *testing.T, folder, victimFile string) {
	base := t.TempDir()
	dir, victim := filepath.Join(base, "skills"), filepath.Join(base, "victim")
	put(t, filepath.Join(victim, victimFile), "the victim's own file\n")
	put(t, filepath.Join(victim, "other.md"), "another file of the victim\n")
	before := tree(t, victim)
	files := [2]string{agentFile(t, filepath.Join(base, "a"), raceAgents[0]), agentFile(t, filepath.Join(base, "b"), raceAgents[1])}
	if _, err := exportAgent(t, dir, files[0], false); err != nil {
		t.Fatal(err)
	}

	// The swap is one atomic exchange of the real folder with a link
	// beside it (renameat2 RENAME_EXCHANGE), so references/ is always
	// there, half of the time as the link.
	refs, link := filepath.Join(dir, folder, "references"), filepath.Join(dir, folder, ".swap")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan int)
	go func() {
		swaps := 0
		for !stop.Load() {
			if unix.Renameat2(unix.AT_FDCWD, refs, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) == nil {
				swaps++
			}
		}
		done <- swaps
	}()

	var exports, failures int
	var escaped string
	var unclear []string
	start := time.Now()
	for i := 0; time.Since(start) < 3*time.Second; i++ {
		exports++
		_, err := exportAgent(t, dir, files[i%2], false)
		if err != nil {
			failures++
			if !clearRaceError.MatchString(err.Error()) || !strings.Contains(err.Error(), dir) {
				unclear = append(unclear, err.Error())
			}
		}
		if now := tree(t, victim); !equalTrees(now, before) {
			escaped = strings.Join(diffTrees(before, now), "; ")
			break
		}
	}
	stop.Store(true)
	swaps := <-done
	if escaped != "" {
		t.Fatalf("after %d exports in %v (%d failed) and %d swaps, export changed the folder outside DIR: %s", exports, time.Since(start).Round(time.Millisecond), failures, swaps, escaped)
	}
	if len(unclear) > 0 {
		t.Fatalf("%d of %d exports failed with an unclear error, as: %s", len(unclear), exports, unclear[0])
	}
	if swaps == 0 || exports < 2 {
		t.Fatalf("%d swaps during %d exports: the race did not run", swaps, exports)
	}
	t.Logf("%d exports, %d refused, %d swaps; the folder outside DIR is as it was", exports, failures, swaps)
}

func equalTrees(a, b map[string]string) bool {
	return len(diffTrees(a, b)) == 0
}

// diffTrees says how tree b differs from tree a.
func diffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, k+" removed")
		} else if w != v {
			out = append(out, k+" rewritten")
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+" created")
		}
	}
	return out
}
