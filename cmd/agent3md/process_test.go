package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentIndexProcesses: several agent3md processes building the
// routing cache for the same new file at once all succeed, leave one
// entry and no scratch behind, and a later route starts from that entry.
// (The router's own tests race goroutines; this races real processes,
// each with its own rename into place.)
func TestConcurrentIndexProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent3md binary; skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "agent3md")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/agent3md/agent3md/cmd/agent3md").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Above the router's memory threshold (500 skills), so it is cached.
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\nagent: many\n---\n@plane z=0 kind=identity\nMany skills.\n")
	for i := 1; i <= 700; i++ {
		fmt.Fprintf(&b, "\n@plane z=%d label=\"task-%d\" kind=skill triggers=\"run task %d, task %d\"\n# Task %d\n\nUse this to run task %d.\n", i, i, i, i, i, i)
	}
	agent := filepath.Join(dir, "many.3md")
	if err := os.WriteFile(agent, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	const procs = 4
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = exec.Command(bin, "index", "--cache-dir", cache, agent).CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range procs {
		if errs[i] != nil {
			t.Errorf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "index-v*"))
	scratch, _ := filepath.Glob(filepath.Join(cache, ".*"))
	if len(entries) != 1 || len(scratch) != 0 {
		t.Fatalf("cache after %d concurrent builds: entries %v, scratch %v; want one entry, no scratch", procs, entries, scratch)
	}
	out, err := exec.Command(bin, "route", "--cache-dir", cache, "--json", agent, "run task 42").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"name": "task-42"`) {
		t.Fatalf("route after the builds: %v\n%s", err, out)
	}
}
