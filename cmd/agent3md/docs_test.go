package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The repository explains itself (issue 12 §6): code and docs cite only
// documents inside it, and each citation of a docs/ section names a file
// and a numbered heading that exist. These tests walk the whole tree.

// forbidden matches citations of documents that are not in the repository:
// the design, protocol and style notes the project started from, their
// shared folder, and the sections of the agent3md/1 text they held. The
// patterns are assembled from pieces so this file does not match them.
var forbidden = regexp.MustCompile(strings.Join([]string{
	`\b` + "DES" + `IGN(?:\.md|\s+§)`,
	`\b` + "PRO" + `TOCOL(?:\.md|\s+§)`,
	`\b` + "STY" + `LE\.md`,
	`\.\./` + "sha" + `red/`,
	`/work/` + "sha" + `red`,
	"sha" + `red/conformance`,
	`agent3md/1\s+` + "§",
}, "|"))

// docsRef is a mention of a file of docs/, with any section numbers that
// follow it: "docs/format.md §9", "docs/format.md §2, §3 and §14",
// "docs/format.md §1–§6". The character before it must not continue a
// path, so a "docs" folder deeper in a path is not one.
var docsRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])docs/([A-Za-z0-9_-]+\.md)((?:\s*(?:,|and|or|to|–|-)?\s*§\d+)*)`)

// sectionNum finds the section numbers in docsRef's second group.
var sectionNum = regexp.MustCompile(`§(\d+)`)

// localRef is, inside docs/, a mention of a sibling "NAME.md §N".
var localRef = regexp.MustCompile(`(?:^|[\s\[(])([A-Za-z0-9_-]+\.md) §(\d+)`)

// mdLink is a Markdown link to a relative .md file, with an optional anchor.
var mdLink = regexp.MustCompile(`\]\(([A-Za-z0-9_./-]+\.md)(#[^)\s]*)?\)`)

// heading is a Markdown heading; numbered is one that starts "§N ".
var (
	heading  = regexp.MustCompile(`(?m)^#{1,6} (.+?)\s*$`)
	numbered = regexp.MustCompile(`^§(\d+)\b`)
)

// wrap joins a comment or paragraph line to the next one, keeping every
// byte offset (the match is replaced by as many spaces), so a file name
// at a line's end and "§3" at the next line's start read as one citation.
var wrap = regexp.MustCompile(`\n[ \t]*(?://+|#+(?:[ \t]|$))?[ \t]*`)

// doc is one file of docs/: its numbered sections and heading anchors.
type doc struct {
	sections map[int]bool
	anchors  map[string]bool
}

// readDoc indexes the headings of a docs/ file's text.
func readDoc(text string) doc {
	d := doc{sections: map[int]bool{}, anchors: map[string]bool{}}
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		title := m[1]
		if n := numbered.FindStringSubmatch(title); n != nil {
			v, _ := strconv.Atoi(n[1])
			d.sections[v] = true
		}
		d.anchors[anchor(title)] = true
	}
	return d
}

// anchor is the fragment a Markdown renderer in GitHub's style gives a
// heading: lowercased, punctuation and symbols (§ included) dropped, each
// space a hyphen.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// citationProblems lists what is wrong with the citations in one file's
// text: name is its slash path from the repository root, docs the
// repository's docs/ files by name. Each problem starts "name:line:".
func citationProblems(name, text string, docs map[string]doc) []string {
	var out []string
	joined := wrap.ReplaceAllStringFunc(text, func(m string) string { return strings.Repeat(" ", len(m)) })
	at := func(off int, format string, args ...any) {
		line := strings.Count(text[:off], "\n") + 1
		out = append(out, fmt.Sprintf("%s:%d: ", name, line)+fmt.Sprintf(format, args...))
	}
	for _, m := range forbidden.FindAllStringIndex(joined, -1) {
		at(m[0], "%q cites a document outside the repository; cite docs/ (architecture.md, format.md, protocol.md, selftest.md, cli.md, install.md) instead", joined[m[0]:m[1]])
	}
	check := func(off int, file string, secs []string) {
		d, ok := docs[file]
		if !ok {
			at(off, "cites docs/%s, which does not exist", file)
			return
		}
		for _, s := range secs {
			if n, _ := strconv.Atoi(s); !d.sections[n] {
				at(off, "cites docs/%s §%s, but that file has no heading numbered §%s", file, s, s)
			}
		}
	}
	for _, m := range docsRef.FindAllStringSubmatchIndex(joined, -1) {
		file, secs := joined[m[2]:m[3]], joined[m[4]:m[5]]
		var nums []string
		for _, s := range sectionNum.FindAllStringSubmatch(secs, -1) {
			nums = append(nums, s[1])
		}
		check(m[2], file, nums)
	}
	if !strings.HasPrefix(name, "docs/") {
		return out
	}
	for _, m := range localRef.FindAllStringSubmatchIndex(joined, -1) {
		check(m[2], joined[m[2]:m[3]], []string{joined[m[4]:m[5]]})
	}
	for _, m := range mdLink.FindAllStringSubmatchIndex(joined, -1) {
		file := joined[m[2]:m[3]]
		if strings.Contains(file, "/") {
			continue // outside docs/: not ours to resolve
		}
		d, ok := docs[file]
		if !ok {
			at(m[2], "links to %s, which is not in docs/", file)
			continue
		}
		if m[4] >= 0 {
			if a := joined[m[4]+1 : m[5]]; !d.anchors[a] {
				at(m[4], "links to %s#%s, but no heading of %s has that anchor", file, a, file)
			}
		}
	}
	return out
}

// scanned reports whether a file's citations are checked: source, docs,
// test data written by people, scripts and build files.
func scanned(rel string) bool {
	switch filepath.Ext(rel) {
	case ".go", ".md", ".txtar", ".json", ".sh", ".py", ".yaml", ".yml":
		return true
	}
	return rel == "justfile" || rel == ".ci/run"
}

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// readDocs indexes every file of docs/.
func readDocs(t *testing.T, root string) map[string]doc {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no docs/*.md under %s (%v)", root, err)
	}
	docs := map[string]doc{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(n)] = readDoc(string(b))
	}
	return docs
}

// TestCitationsStayInRepository walks the repository and fails on any
// citation of a document outside it, any docs/ file that does not exist,
// any section number its file lacks, and any docs/ link whose anchor no
// heading has.
func TestCitationsStayInRepository(t *testing.T) {
	root := repoRoot(t)
	docs := readDocs(t, root)
	var problems []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			switch rel {
			case ".git", "bin", "dist", "node_modules", "bench/out":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !scanned(rel) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		problems = append(problems, citationProblems(rel, string(b), docs)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("scanned only %d files under %s; the walk is broken", files, root)
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCitationChecker holds citationProblems to its rules on small
// inputs, so the repository-wide test cannot pass by checking nothing.
// Bad citations are assembled from pieces, so this file holds none.
func TestCitationChecker(t *testing.T) {
	docs := map[string]doc{
		"format.md":   readDoc("# Format\n\n## §1 Text and lines\n\n## §9 Inputs and command templates\n"),
		"protocol.md": readDoc("# Protocol\n\n## §2 Framing\n"),
	}
	d, dx := "docs/", "docs/"+"x.md"
	for _, tt := range []struct {
		name, file, text string
		n                int      // how many problems
		want             []string // substrings the problems must hold
	}{
		{"good section", "a.go", "// Quote (" + d + "format.md §9).\n", 0, nil},
		{"good sections", "a.go", "// see " + d + "format.md §1 and §9, " + d + "protocol.md §2\n", 0, nil},
		{"good range", "a.go", "// (" + d + "format.md §1–§9)\n", 0, nil},
		{"file only", "a.md", "See " + d + "protocol.md.\n", 0, nil},
		{"section wrapped to the next comment line", "a.go", "// values (" + d + "format.md\n// §9, typed)\n", 0, nil},
		{"missing section", "a.go", "x\n// (" + d + "format.md §7)\n", 1, []string{"a.go:2:", "no heading numbered §7"}},
		{"missing second section", "a.go", "// " + d + "format.md §1, §4\n", 1, []string{"§4"}},
		{"wrapped missing section", "a.go", "// " + d + "protocol.md\n// §3\n", 1, []string{"a.go:1:", "§3"}},
		{"missing file", "a.md", "See " + d + "nope.md §1.\n", 1, []string{"nope.md, which does not exist"}},
		{"path that only ends in docs", "a.md", "See x/" + d + "nope.md.\n", 0, nil},
		{"design section", "a.go", "// (" + "DES" + "IGN §2)\n", 1, []string{"outside the repository"}},
		{"design file", "a.go", "// see " + "DES" + "IGN.md\n", 1, []string{"outside the repository"}},
		{"protocol section wrapped", "a.go", "// (" + "PRO" + "TOCOL\n// §1.2)\n", 1, []string{"a.go:1:", "outside the repository"}},
		{"protocol file", "a.go", "// " + "PRO" + "TOCOL.md §1.1\n", 1, []string{"outside the repository"}},
		{"style", "a.go", "// Exit codes (" + "STY" + "LE.md)\n", 1, []string{"outside the repository"}},
		{"shared folder", "NOTE.md", "from `../" + "shared/` and\n`" + "shared/" + "conformance`\n", 2, []string{"NOTE.md:1:", "NOTE.md:2:"}},
		{"work shared", "NOTE.md", "from /work/" + "shared\n", 1, []string{"outside the repository"}},
		{"spec section", "a.go", "// agent3md/1 " + "§2 route\n", 1, []string{"outside the repository"}},
		{"words that merely begin alike", "a.go", "// a DESIGNER's note; PROTOCOLS; STYLE\n", 0, nil},
		{"docs sibling section", dx, "As [format.md §9](format.md#9-inputs-and-command-templates) says.\n", 0, nil},
		{"docs sibling bad section", dx, "As format.md " + "§5 says.\n", 1, []string{"no heading numbered §5"}},
		{"docs bad anchor", dx, "See [it](protocol.md#" + "3-framing).\n", 1, []string{"no heading of protocol.md has that anchor"}},
		{"docs missing sibling", dx, "See [it](" + "gone.md).\n", 1, []string{"not in docs/"}},
		{"sibling check only in docs", "README.md", "See [it](protocol.md#" + "3-framing).\n", 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := citationProblems(tt.file, tt.text, docs)
			if len(got) != tt.n {
				t.Fatalf("%d problems %q, want %d", len(got), got, tt.n)
			}
			all := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("problems %q lack %q", got, w)
				}
			}
		})
	}
}

// TestAnchor pins the heading anchors docs/ links use.
func TestAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"§4 loader: the open agent":       "4-loader-the-open-agent",
		"§10 Routing":                     "10-routing",
		"§9 Inputs and command templates": "9-inputs-and-command-templates",
		"Exit status":                     "exit-status",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadmeIsShort holds the README to what a newcomer reads in five
// minutes (issue 25 §6): under 200 lines, opening with the two commands a
// fresh clone needs; the rest lives in docs/.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if n := strings.Count(text, "\n"); n >= 200 {
		t.Errorf("README.md has %d lines; keep it under 200 and move detail into docs/", n)
	}
	first := text[strings.Index(text, "```sh"):]
	first = first[:strings.Index(first[3:], "```")+3]
	for _, cmd := range []string{"go run ./cmd/agent3md selftest examples/", "go test ./..."} {
		if !strings.Contains(first, cmd) {
			t.Errorf("README's first command block lacks %q:\n%s", cmd, first)
		}
	}
}
