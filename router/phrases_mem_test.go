package router

import (
	"runtime"
	"testing"
)

// TestBuildPhrasesGarbage bounds what building the phrase index allocates
// beyond what it keeps: at 100,000 skills the garbage lands in the middle
// of a cold start and sets its peak memory. Maps presized to the phrase
// count (most phrases repeat) made it several times what is kept.
func TestBuildPhrasesGarbage(t *testing.T) {
	// Like real agents (and the benchmark generator), most trigger
	// phrases repeat across skills: five shared ones, one of a skill's own.
	skills := Skills(genSkills(20000))
	for i := range skills {
		s := &skills[i]
		s.Triggers = append(s.Triggers[:3:3], "quickly", "for review", s.Name+" now")
	}
	var before, built, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := buildPhrases(skills)
	runtime.ReadMemStats(&built)
	runtime.GC()
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
