// Command backrefs counts the file-to-file references inside one package
// that point back, against the order a call flows through its files. Run
// it from the repository root:
//
//	go run ./scripts/backrefs [-v] [DIR]   (DIR defaults to mcp)
//
// A reference is a distinct pair of the package's non-test files (A, B),
// A ≠ B, where code declared in A names a package-level function, method,
// type, variable or constant declared in B (resolved by go/types). The
// files are put in the order a call flows, callers above what they call:
// a depth-first walk starting at the package's exported functions, then
// its exported methods and the rest (each group in file order, then
// source order), following each declaration's references in the order
// they appear, ranks a file where the walk first enters it; then each
// file in turn moves to the place where the fewest references point up,
// until no single move removes one (sift). A reference from A to B is a
// back-reference when B ranks above A: a lower file names one above it.
// The count is what the files' layering allows, not what one arbitrary
// order gives. -v lists the order and every back-reference.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list the file ranks and every back-reference")
	flag.Parse()
	dir := "mcp"
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	if err := count(dir, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "backrefs:", err)
		os.Exit(1)
	}
}

// decl is one package-level declaration: its file and what it names, in
// order of appearance.
type decl struct {
	file string
	refs []types.Object
	// order sorts the walk's roots: exported functions first, then
	// exported methods, then the rest.
	order int
	pos   token.Pos
}

func count(dir string, verbose bool) error {
	fset := token.NewFileSet()
	bp, err := build.ImportDir(dir, 0) // the files this platform builds, tests left out
	if err != nil {
		return err
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return fset.File(files[i].Pos()).Name() < fset.File(files[j].Pos()).Name() })
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(dir, fset, files, info)
	if err != nil {
		return err
	}
	fileOf := func(o types.Object) string { return filepath.Base(fset.Position(o.Pos()).Filename) }
	own := func(o types.Object) bool {
		if o == nil || o.Pkg() != pkg {
			return false
		}
		if f, ok := o.(*types.Func); ok {
			return f.Type().(*types.Signature).Recv() != nil || o.Parent() == pkg.Scope()
		}
		return o.Parent() == pkg.Scope()
	}
	decls := map[types.Object]*decl{}
	for _, f := range files {
		name := filepath.Base(fset.Position(f.Pos()).Filename)
		for _, d := range f.Decls {
			var objs []types.Object
			switch d := d.(type) {
			case *ast.FuncDecl:
				objs = append(objs, info.Defs[d.Name])
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						objs = append(objs, info.Defs[s.Name])
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if o := info.Defs[n]; o != nil {
								objs = append(objs, o)
							}
						}
					}
				}
			}
			var refs []types.Object
			ast.Inspect(d, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if o := info.Uses[id]; own(o) {
						refs = append(refs, o)
					}
				}
				return true
			})
			for _, o := range objs {
				if o == nil {
					continue
				}
				dd := &decl{file: name, refs: refs, order: 2, pos: o.Pos()}
				if fn, ok := o.(*types.Func); ok && o.Exported() {
					dd.order = 1
					if fn.Type().(*types.Signature).Recv() == nil {
						dd.order = 0
					}
				}
				decls[o] = dd
			}
		}
	}
	// The walk.
	rank := map[string]int{}
	var ranked []string
	seen := map[types.Object]bool{}
	var walk func(o types.Object)
	walk = func(o types.Object) {
		d := decls[o]
		if d == nil || seen[o] {
			return
		}
		seen[o] = true
		if _, ok := rank[d.file]; !ok {
			rank[d.file] = len(ranked)
			ranked = append(ranked, d.file)
		}
		for _, r := range d.refs {
			walk(r)
		}
	}
	var roots []types.Object
	for o := range decls {
		roots = append(roots, o)
	}
	sort.Slice(roots, func(i, j int) bool {
		a, b := decls[roots[i]], decls[roots[j]]
		if a.order != b.order {
			return a.order < b.order
		}
		return a.pos < b.pos
	})
	for _, o := range roots {
		walk(o)
	}
	// The references.
	type pair struct{ from, to string }
	refs := map[pair]bool{}
	names := map[pair][]string{} // what A names in B, for -v
	for _, d := range decls {
		for _, r := range d.refs {
			if to := fileOf(r); to != d.file {
				p := pair{d.file, to}
				refs[p] = true
				if !slices.Contains(names[p], r.Name()) {
					names[p] = append(names[p], r.Name())
				}
			}
		}
	}
	ranked = sift(ranked, func(from, to string) bool { return refs[pair{from, to}] })
	for i, f := range ranked {
		rank[f] = i
	}
	var back []pair
	for p := range refs {
		if rank[p.to] < rank[p.from] {
			back = append(back, p)
		}
	}
	slices.SortFunc(back, func(a, b pair) int {
		if c := rank[a.from] - rank[b.from]; c != 0 {
			return c
		}
		return rank[a.to] - rank[b.to]
	})
	if verbose {
		for i, f := range ranked {
			fmt.Printf("%3d %s\n", i, f)
		}
		for _, p := range back {
			fmt.Printf("back: %s -> %s (%s)\n", p.from, p.to, strings.Join(names[p], ", "))
		}
	}
	fmt.Printf("%s: %d files, %d file-to-file references, %d back-references\n", dir, len(ranked), len(refs), len(back))
	return nil
}

// sift improves order: it moves one file at a time to the position where
// the fewest references point back (the first such position on a tie),
// and repeats until no move helps. The result is a local minimum: no
// single file's move removes a back-reference.
func sift(order []string, ref func(from, to string) bool) []string {
	order = slices.Clone(order)
	for improved := true; improved; {
		improved = false
		for _, f := range slices.Clone(order) {
			i := slices.Index(order, f)
			rest := slices.Delete(slices.Clone(order), i, i+1)
			// cost[j]: back-references of f when it sits before rest[j].
			best, bestCost := -1, 0
			cost := 0
			for _, g := range rest { // f first: every file after it that f is named by points back
				if ref(g, f) {
					cost++
				}
			}
			for j := 0; j <= len(rest); j++ {
				if best < 0 || cost < bestCost {
					best, bestCost = j, cost
				}
				if j == len(rest) {
					break
				}
				g := rest[j] // f moves past g
				if ref(g, f) {
					cost--
				}
				if ref(f, g) {
					cost++
				}
			}
			cur := 0
			for j, g := range rest {
				if j < i && ref(f, g) || j >= i && ref(g, f) {
					cur++
				}
			}
			if bestCost < cur {
				order = slices.Insert(rest, best, f)
				improved = true
			}
		}
	}
	return order
}
