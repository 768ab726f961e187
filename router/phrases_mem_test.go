package router

import (
	"runtime"
	"testing"
)

// TestBuildPhrasesGarbage bounds what building the phrase index allocates
// beyond what it keeps: at 100,000 skills the garbage lands in the middle
// of a cold start and sets its peak memory. Maps presized to the phrase
// count (most phrases repeat) made it several times what is kept.
//
// Both figures are the process's, so the test measures alone in a child
// process (runAlone), and collects twice before each reading: one
// collection only moves what sync.Pools hold to their victim caches, and
// the second frees it, which counted as a drop in what the build kept
// (4,855 KB kept instead of 5,582 KB after the package's other tests).
func TestBuildPhrasesGarbage(t *testing.T) {
	if !runAlone(t) {
		return
	}
	// Like real agents (and the benchmark generator), most trigger
	// phrases repeat across skills: five shared ones, one of a skill's own.
	skills := Skills(genSkills(20000))
	for i := range skills {
		s := &skills[i]
		s.Triggers = append(s.Triggers[:3:3], "quickly", "for review", s.Name+" now")
	}
	var before, built, after runtime.MemStats
	collect()
	runtime.ReadMemStats(&before)
	x := buildPhrases(skills)
	runtime.ReadMemStats(&built)
	collect()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(x)
	runtime.KeepAlive(skills)
	allocated := built.TotalAlloc - before.TotalAlloc
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("allocated %d KB, kept %d KB", allocated>>10, kept>>10)
	if kept <= 0 || allocated > 5*uint64(kept) {
		t.Errorf("building the phrase index of %d skills allocated %d KB and kept %d KB: want at most 5x what is kept (maps sized for every phrase made it 7x)", skills.Len(), allocated>>10, kept>>10)
	}
}

// collect runs two collections: after the first, what sync.Pools held is
// still reachable from their victim caches; the second frees it.
func collect() {
	runtime.GC()
	runtime.GC()
}
