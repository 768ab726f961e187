package mcp

import (
	"testing"
)

// TestIndexBuildHook: Options.IndexBuild hears of a build at its first
// progress report, once, with the total; its end runs when the router has
// returned, once, and later reports start nothing; progress still reaches
// the next callback. With no progress (a cache hit) it is never called.
func TestIndexBuildHook(t *testing.T) {
	var starts, ends, nexts, total int
	s := &server{opts: &Options{IndexBuild: func(n int) func() {
		starts++
		total = n
		return func() { ends++ }
	}}}
	progress, done := s.indexBuild(func(int, int) { nexts++ })
	progress(1000, 5000)
	progress(2000, 5000)
	progress(5000, 5000)
	if starts != 1 || total != 5000 || ends != 0 || nexts != 3 {
		t.Fatalf("during the build: starts %d (total %d), ends %d, next called %d times; want 1 (5000), 0, 3", starts, total, ends, nexts)
	}
	done()
	done()
	progress(5000, 5000) // a background build reporting after New returned
	if starts != 1 || ends != 1 {
		t.Errorf("after the router returned: starts %d, ends %d; want 1 and 1", starts, ends)
	}

	starts, ends = 0, 0
	_, done = s.indexBuild(nil)
	done()
	if starts != 0 || ends != 0 {
		t.Errorf("a cache hit: starts %d, ends %d; want none", starts, ends)
	}

	s = &server{opts: &Options{}}
	progress, done = s.indexBuild(nil)
	if progress != nil {
		t.Error("without IndexBuild or a next callback the router should get no Progress")
	}
	done()
}
