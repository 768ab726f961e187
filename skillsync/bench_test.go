package skillsync

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

// The local side of a sync of 1,000 skills from the fake server: a
// first sync (every file read and written) and a no-op (the listing and
// DIR's digests only). bench/sync.sh measures the whole command against
// agent3md serve beside git.

func benchLibrary(n int) map[string]map[string]string {
	lib := map[string]map[string]string{}
	for i := range n {
		name := "skill-" + strconv.Itoa(i)
		lib[name] = map[string]string{
			"SKILL.md":            skillText(name, "v1") + string(make([]byte, 0)),
			"references/AGENT.md": "# Team\n\nThe team's rules.\n",
			"references/notes.md": "Notes of " + name + ".\n",
		}
	}
	return lib
}

func BenchmarkSyncFirst1000(b *testing.B) {
	f := newFake("ext", benchLibrary(1000))
	f.cfg.PageSize = 50
	url := f.serveHTTP(&testing.T{})
	base := b.TempDir()
	b.ResetTimer()
	for i := range b.N {
		dir := filepath.Join(base, strconv.Itoa(i))
		if _, err := Sync(context.Background(), &Source{URL: url}, &Options{Dir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSyncNoop1000(b *testing.B) {
	f := newFake("ext", benchLibrary(1000))
	f.cfg.PageSize = 50
	url := f.serveHTTP(&testing.T{})
	dir := b.TempDir()
	if _, err := Sync(context.Background(), &Source{URL: url}, &Options{Dir: dir}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		sum, err := Sync(context.Background(), &Source{URL: url}, &Options{Dir: dir})
		if err != nil || len(sum.Unchanged) != 1000 {
			b.Fatal(err, sum)
		}
	}
}
