package main

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The module's import arrows point one way (docs/architecture.md §1): each
// top-level package imports only the ones below it, and internal/ is the
// floor, importing no top-level package at all. The binary sits on top of
// the whole graph, so its tests hold the graph to that picture.

const module = "github.com/agent3md/agent3md"

// allowedImports lists, per top-level package, the other top-level
// packages its non-test files may import. Anything not listed is a back
// arrow or a new edge that docs/architecture.md §1 should describe first.
var allowedImports = map[string][]string{
	"agentfile":             {},
	"skillsdir/folderwrite": {},
	"skillsdir/skillmd":     {},
	"skillsdir":             {"agentfile", "skillsdir/skillmd", "skillsdir/folderwrite"},
	"skillsdir/export":      {"agentfile", "skillsdir/skillmd", "skillsdir/folderwrite"},
	"skillsdir/importer":    {"agentfile", "skillsdir", "skillsdir/export", "skillsdir/skillmd", "skillsdir/folderwrite"},
	"loader":                {"agentfile", "skillsdir", "skillsdir/export"},
	"router":                {"agentfile", "loader"},
	"mcp":                   {"agentfile", "loader", "router"},
	"cases":                 {"router"},
	"lint":                  {"router"},
	"selftest":              {"mcpclient"},
	"mcpclient":             {},
	"skillsync":             {"skillsdir/skillmd", "skillsdir/folderwrite", "mcpclient"},
	"bench/mcpbench":        {"router", "mcpclient"},
	"scripts/callpath":      {"loader", "mcp"},
	"scripts/backrefs":      {},
}

// moduleImports reads the Go files of dir (tests too when tests is set)
// and returns the module packages they import, relative to the module.
func moduleImports(t *testing.T, dir string, tests bool) []string {
	t.Helper()
	p, err := build.ImportDir(dir, build.ImportComment)
	if err != nil {
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		t.Fatalf("%s: %v", dir, err)
	}
	all := slices.Clone(p.Imports)
	if tests {
		all = append(append(all, p.TestImports...), p.XTestImports...)
	}
	var out []string
	for _, imp := range all {
		if rel, ok := strings.CutPrefix(imp, module+"/"); ok && !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// TestInternalIsTheFloor: no package under internal/, tests included,
// imports a package of the module outside internal/.
func TestInternalIsTheFloor(t *testing.T) {
	root := filepath.Join("..", "..", "internal")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir():
			return nil
		case d.Name() == "testdata":
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
		for _, imp := range moduleImports(t, path, true) {
			seen++
			if !strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s: internal/ is the floor, so it may import only other internal packages; move the code that needs %s up, or what it needs down", filepath.ToSlash(rel), imp, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no import between internal packages found: is the walk reading the module?")
	}
}

// TestImportArrows: each top-level package imports only the top-level
// packages below it (allowedImports); internal ones are free. A package
// the table does not know is a failure too: its place must be decided.
func TestImportArrows(t *testing.T) {
	top := filepath.Join("..", "..")
	found := 0
	filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(top, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == "internal" || rel == "cmd" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
			return filepath.SkipDir // a module of its own (scripts/image): outside this graph
		}
		if p, err := build.ImportDir(path, 0); err == nil && len(p.GoFiles) > 0 {
			found++
			if _, ok := allowedImports[rel]; !ok {
				t.Errorf("package %s is not in allowedImports: say in docs/architecture.md §1 where it sits, and add it", rel)
			}
		}
		return nil
	})
	if found < len(allowedImports) {
		t.Fatalf("found %d top-level packages, %d in the table: is the walk reading the module?", found, len(allowedImports))
	}
	for pkg, allowed := range allowedImports {
		for _, imp := range moduleImports(t, filepath.Join("..", "..", filepath.FromSlash(pkg)), false) {
			if strings.HasPrefix(imp, "internal/") || slices.Contains(allowed, imp) {
				continue
			}
			t.Errorf("%s imports %s, which docs/architecture.md §1 does not allow (it may import %v and internal/ packages)", pkg, imp, allowed)
		}
	}
}

// TestTestkitOnlyInTests: internal/testkit, the helpers tests share, is
// imported by test files only, so none of it is built into the binary.
func TestTestkitOnlyInTests(t *testing.T) {
	top := filepath.Join("..", "..")
	const kit = module + "/internal/testkit"
	users := 0
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir():
			return nil
		case d.Name() == "testdata" || (path != top && strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(top, path)
		if slices.Contains(p.Imports, kit) {
			t.Errorf("%s imports internal/testkit outside its tests: the binary must not carry test helpers; move the use into a _test.go file", filepath.ToSlash(rel))
		}
		if slices.Contains(p.TestImports, kit) || slices.Contains(p.XTestImports, kit) {
			users++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if users == 0 {
		t.Fatal("no test imports internal/testkit: is the walk reading the module?")
	}
}
