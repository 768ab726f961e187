// Command callpath measures which of the module's source files one
// `tools/call route_skill` runs, from its bytes arriving on the stdio
// transport to its answer written (docs/architecture.md §6, "One call's
// path"). Run it from the repository root as a coverage build:
//
//	go run -cover -covermode=atomic -coverpkg=./... ./scripts/callpath [-calls 5]
//
// (with GOCOVERDIR set to a scratch directory, Go does not warn at exit
// that it has nowhere to write the whole run's counters).
// It serves examples/devtools.3md in-process with mcp.Serve over pipes,
// sends initialize, notifications/initialized and a warm-up route_skill
// (the agent loaded, its index built, the tools' schemas derived), then
// for each measured call reads the coverage counters, sends the call,
// reads its answer, waits for the writer to settle and reads the counters
// again: the files with a block whose count changed are the call's. Each
// measured call routes a different request, so no answer comes from a
// cache. `go tool covdata textfmt` reads the counters.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/coverage"
	"slices"
	"strings"
	"time"

	"github.com/agent3md/agent3md/mcp"
)

const module = "github.com/agent3md/agent3md/"

func main() {
	agent := flag.String("agent", "examples/devtools.3md", "the agent file served")
	calls := flag.Int("calls", 3, "route_skill calls measured, one after another (at most 5)")
	settle := flag.Duration("settle", 200*time.Millisecond, "how long to wait after an answer before reading the counters")
	flag.Parse()
	if err := measure(*agent, *calls, *settle); err != nil {
		fmt.Fprintln(os.Stderr, "callpath:", err)
		os.Exit(1)
	}
}

// requests are the measured calls' texts: each routes differently.
var requests = []string{"review my pull request", "the build is failing on main", "write a commit message", "deploy to staging", "find where this function is called"}

func measure(agent string, calls int, settle time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- mcp.Serve(ctx, inR, outW, options(agent))
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	send := func(line string) (string, error) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			return "", fmt.Errorf("write %s: %w", line, err)
		}
		if !strings.Contains(line, `"id"`) {
			return "", nil
		}
		ans, err := answers.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("answer to %s: %w", line, err)
		}
		if !strings.Contains(ans, `"result"`) {
			return "", fmt.Errorf("%s answered %s", line, ans)
		}
		return ans, nil
	}
	route := func(id int, text string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":%q}}}`, id, text)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"callpath","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		route(2, "warm up the index"),
	} {
		if _, err := send(line); err != nil {
			return err
		}
	}
	// What the server starts once loaded (the file's findings) ends before
	// the first measured call.
	time.Sleep(5 * settle)
	var union []string
	for i := range min(calls, len(requests)) {
		before, err := counters()
		if err != nil {
			return err
		}
		if _, err := send(route(10+i, requests[i])); err != nil {
			return err
		}
		time.Sleep(settle) // the writer's bookkeeping after the line is part of the call
		after, err := counters()
		if err != nil {
			return err
		}
		files := changed(before, after)
		fmt.Printf("call %d (%q): %d files\n%s", i+1, requests[i], len(files), report(files))
		union = append(union, files...)
	}
	slices.Sort(union)
	union = slices.Compact(union)
	fmt.Printf("union of the calls: %d files\n%s", len(union), report(union))
	inW.Close()
	return <-served
}

// counters writes the coverage counters now and returns each block's
// count, keyed by its position (file:line.col,line.col).
func counters() (map[string]string, error) {
	dir, err := os.MkdirTemp("", "callpath")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := coverage.WriteMetaDir(dir); err != nil {
		return nil, fmt.Errorf("not a coverage build? run it with go run -cover -covermode=atomic -coverpkg=./... ./scripts/callpath: %w", err)
	}
	if err := coverage.WriteCountersDir(dir); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "cover.txt")
	if b, err := exec.Command("go", "tool", "covdata", "textfmt", "-i="+dir, "-o="+out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go tool covdata: %w\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	counts := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		// file.go:12.3,14.5 2 1 — the block, its statements, its count.
		if f := strings.Fields(line); len(f) == 3 {
			counts[f[0]] = f[2]
		}
	}
	return counts, nil
}

// changed returns the module-relative source files with a block whose
// count differs between before and after.
func changed(before, after map[string]string) []string {
	var files []string
	for block, n := range after {
		if before[block] == n {
			continue
		}
		file, _, _ := strings.Cut(block, ":")
		file = strings.TrimPrefix(file, module)
		if strings.HasPrefix(file, "scripts/callpath/") {
			continue // the measuring program itself
		}
		if !slices.Contains(files, file) {
			files = append(files, file)
		}
	}
	slices.Sort(files)
	return files
}

// report lists files by package with each package's count.
func report(files []string) string {
	var b strings.Builder
	byPkg := map[string][]string{}
	var pkgs []string
	for _, f := range files {
		p := path.Dir(f)
		if byPkg[p] == nil {
			pkgs = append(pkgs, p)
		}
		byPkg[p] = append(byPkg[p], path.Base(f))
	}
	for _, p := range pkgs {
		fmt.Fprintf(&b, "  %-18s %2d  %s\n", p, len(byPkg[p]), strings.Join(byPkg[p], " "))
	}
	return b.String()
}
