package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/internal/bytesize"
	"github.com/agent3md/agent3md/internal/docscheck"
	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/internal/watch"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// TestDocsQuoteTheFlagDefaults: wherever README.md or docs/ give a flag's
// default beside its name — "`--max-bytes` (512 MiB)", "`--max-message-bytes`
// (default 4 MiB)", "`--max-streams`, default 1024", a flags table's
// "| `--max-concurrent N` | 256 |" — the figure is the default the
// command tree registers (a flag several commands define with different
// defaults may be quoted with any of them).
func TestDocsQuoteTheFlagDefaults(t *testing.T) {
	docs := loadDocs(t)
	facts := flagFacts(newRoot(&app{}))
	if len(facts) < 20 {
		t.Fatalf("only %d flags with a numeric default; is the command tree walked?", len(facts))
	}
	problems, checked := docscheck.Check(docs, facts)
	for _, p := range problems {
		t.Error(p)
	}
	if checked < 20 {
		t.Errorf("only %d flag defaults quoted in the docs were found; has the quoting changed shape?", checked)
	}
	t.Logf("%d flag defaults quoted in the docs, checked against %d flags", checked, len(facts))
}

// loadDocs reads README.md and docs/*.md.
func loadDocs(t *testing.T) []docscheck.Doc {
	t.Helper()
	docs, err := docscheck.Load(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// flagFacts are the flags of root's tree whose default is a number, a
// size or a duration, each with the pattern of its quoted default.
func flagFacts(root *cobra.Command) []docscheck.Fact {
	type def struct {
		kind  docscheck.Kind
		value int64
		cmds  []string
	}
	byName := map[string]map[int64]*def{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		visit := func(f *pflag.Flag) {
			kind, v, ok := flagDefault(f)
			if !ok {
				return
			}
			if byName[f.Name] == nil {
				byName[f.Name] = map[int64]*def{}
			}
			d := byName[f.Name][v]
			if d == nil {
				d = &def{kind: kind, value: v}
				byName[f.Name][v] = d
			}
			d.cmds = append(d.cmds, c.Name())
		}
		c.LocalFlags().VisitAll(visit)
		c.PersistentFlags().VisitAll(visit)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	var facts []docscheck.Fact
	for name, defs := range byName {
		f := docscheck.Fact{Optional: true, Where: flagQuote(name)}
		var where []string
		for _, d := range defs {
			f.Kind = d.kind
			f.Values = append(f.Values, d.value)
			sort.Strings(d.cmds)
			where = append(where, strings.Join(compact(d.cmds), ", "))
		}
		sort.Strings(where)
		f.Name = "the default of --" + name + " (" + strings.Join(where, "; ") + ")"
		facts = append(facts, f)
	}
	sort.Slice(facts, func(i, j int) bool { return facts[i].Name < facts[j].Name })
	return facts
}

// compact drops repeats from a sorted list.
func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// flagQuote finds a flag's default quoted beside its name: in
// parentheses ("(512 MiB)", "(default 4 MiB)", "(64; …"), after a
// comma ("`--max-streams`, default 1024,", "(`--max-message-bytes`, 4 MiB)"),
// or in the next cell of a table row. The figure must end
// the parenthesis, clause or cell: "(1 KiB for an answer)" is a bound,
// not the default.
func flagQuote(name string) *regexp.Regexp {
	return regexp.MustCompile("`--" + regexp.QuoteMeta(name) + "(?:[ =][^`]*)?`" +
		`(?:\s+\((?:default\s+)?|,\s+(?:default\s+)?|\s+\|\s+)` + "`?" + docscheck.Fig + "`?" + `\s*[;,)|]`)
}

// flagDefault reads a flag's default as a figure: an integer (bytes for
// a size flag), a duration, or a size written with a unit.
func flagDefault(f *pflag.Flag) (docscheck.Kind, int64, bool) {
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64", "int32":
		n, err := strconv.ParseInt(f.DefValue, 10, 64)
		return docscheck.Count, n, err == nil
	case "size":
		n, err := strconv.ParseInt(f.DefValue, 10, 64)
		return docscheck.Bytes, n, err == nil
	case "duration":
		d, err := time.ParseDuration(f.DefValue)
		return docscheck.Duration, int64(d), err == nil
	case "string":
		if n, err := bytesize.Parse(f.DefValue); err == nil && strings.ContainsAny(f.DefValue, "BKMGT") {
			return docscheck.Bytes, n, true
		}
	}
	return 0, 0, false
}

// TestDocsQuoteTheConstants: the limits and defaults README.md and docs/
// quote in prose are the exported constants' values. Each package with
// unexported ones the docs quote holds them in its own docfigures_test.go.
func TestDocsQuoteTheConstants(t *testing.T) {
	p := docscheck.Phrase
	c := func(name string, v int64, k docscheck.Kind, where ...*regexp.Regexp) []docscheck.Fact {
		var out []docscheck.Fact
		for _, w := range where {
			out = append(out, docscheck.Fact{Name: name, Values: []int64{v}, Kind: k, Where: w})
		}
		return out
	}
	n, b, d := docscheck.Count, docscheck.Bytes, docscheck.Duration
	var facts []docscheck.Fact
	for _, fs := range [][]docscheck.Fact{
		c("router.DefaultLimit", router.DefaultLimit, n,
			p("{} by default (`router.DefaultLimit`"), p("ranked mode defaults to {},"),
			p("default limit of {}:"), p("answers {} ranked matches by default"), p("{} lines in all by default")),
		c("router.MaxRequestWords", router.MaxRequestWords, n, p("A request over {} words")),
		c("router.DefaultMemoryThreshold", router.DefaultMemoryThreshold, n, p("Agents of up to {} skills are indexed in memory")),
		c("loader.DefaultSettle", int64(loader.DefaultSettle), d, p("`Options.Settle` old (default {})")),
		c("loader.DefaultStableTries", loader.DefaultStableTries, n, p("`Options.StableTries` scans (default {})")),
		c("loader.DefaultRecheck", int64(loader.DefaultRecheck), d, p("a stat check at most every {},")),
		c("watch.DefaultDebounce", int64(watch.DefaultDebounce), d, p("`Options.Debounce` (default {})")),
		c("watch.DefaultMaxWait", int64(watch.DefaultMaxWait), d, p("`Options.MaxWait` (default {})")),
		c("watch.DefaultPoll", int64(watch.DefaultPoll), d, p("`Options.Poll` (default {})")),
		c("watch.DefaultMaxDirs", watch.DefaultMaxDirs, n, p("`MaxDirs` directories (default {})")),
		c("skillsdir.DefaultMaxDepth", skillsdir.DefaultMaxDepth, n, p("levels below it (default {};")),
		c("skillsdir.DefaultMaxSkills", skillsdir.DefaultMaxSkills, n, p("`MaxSkills` skills (default {})")),
		c("skillsdir.DefaultMaxFileBytes", skillsdir.DefaultMaxFileBytes, b, p("a file over `MaxFileBytes` (default {})")),
		c("skillsdir.DefaultMaxFilesPerSkill", skillsdir.DefaultMaxFilesPerSkill, n, p("the extension's limits ({} files,"), p("own limits are {} files and")),
		c("skillsdir.DefaultMaxSkillBytes", skillsdir.DefaultMaxSkillBytes, b, p("limits (512 files, {})"), p("512 files and {} per skill")),
		c("folderwrite.MaxElementBytes", folderwrite.MaxElementBytes, b, p("at most {} (`NAME_MAX`")),
		c("httpd.DefaultReadHeaderTimeout", int64(httpd.DefaultReadHeaderTimeout), d, p("Timeouts: {} to send the headers")),
		c("httpd.DefaultReadTimeout", int64(httpd.DefaultReadTimeout), d, p("{} to send the body")),
		c("httpd.DefaultWriteTimeout", int64(httpd.DefaultWriteTimeout), d, p("{} to write the answer")),
		c("httpd.DefaultCredentialTimeout", int64(httpd.DefaultCredentialTimeout), d, p("(`--max-credential-bytes`), within {}")),
		c("httpd.MaxCredentialBytesCeiling", httpd.MaxCredentialBytesCeiling, b, p("(up to {}); a larger one is refused")),
		c("mcp.DefaultMaxLineBytes", mcp.DefaultMaxLineBytes, b, p("A line may be at most {} (`--max-message-bytes`")),
		c("mcp.DefaultMaxAnswerBytes", mcp.DefaultMaxAnswerBytes, b, p("exceeds the answer bound, {} by default")),
	} {
		facts = append(facts, fs...)
	}
	docscheck.Hold(t, repoRoot(t), facts)
}

// TestArchitectureListsEveryCommand: docs/architecture.md §7 names every
// subcommand the binary has, and none it lacks.
func TestArchitectureListsEveryCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## §7 ")
	if start < 0 {
		t.Fatal("docs/architecture.md has no §7")
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	bullet, _, _ := strings.Cut(section, "each with its own flags")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(bullet, -1) {
		listed[m[1]] = true
	}
	for _, c := range newRoot(&app{}).Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		if !listed[c.Name()] {
			t.Errorf("docs/architecture.md §7 does not list the %s command", c.Name())
		}
		delete(listed, c.Name())
	}
	for name := range listed {
		t.Errorf("docs/architecture.md §7 lists %s, which is not a command", name)
	}
}

// TestFlagQuotes holds flagFacts and flagQuote to the shapes the docs
// quote defaults in, on a small command tree, so the repository-wide test
// cannot pass by finding nothing: a drifted figure fails, a bound that is
// not the default is not read as one.
func TestFlagQuotes(t *testing.T) {
	root := &cobra.Command{Use: "x"}
	sub := &cobra.Command{Use: "serve"}
	root.AddCommand(sub)
	var size, count int
	var wait time.Duration
	bytesize.IntVar(sub.Flags(), &size, "max-body-bytes", 4<<20, "")
	sub.Flags().IntVar(&count, "max-concurrent", 256, "")
	sub.Flags().DurationVar(&wait, "shutdown-timeout", 20*time.Second, "")
	facts := flagFacts(root)
	if len(facts) != 3 {
		t.Fatalf("flagFacts found %d flags, want 3", len(facts))
	}
	for _, tt := range []struct {
		text string
		want string // "" for no problem
	}{
		{"`--max-body-bytes` (default 4 MiB)", ""},
		{"`--max-body-bytes N` (4MiB; more is refused)", ""},
		{"| `--max-concurrent N` | 256 | more get 503 |", ""},
		{"past `--max-concurrent`, default 256, instead", ""},
		{"get `--shutdown-timeout` (20 s) to finish", ""},
		{"`--max-body-bytes` (default 1 MiB)", "says 1 MiB for the default of --max-body-bytes (serve), which is 4194304 bytes"},
		{"| `--max-concurrent N` | 128 | more get 503 |", "says 128 for the default of --max-concurrent (serve), which is 256"},
		{"`--shutdown-timeout`\n  (30s)", "says 30s for the default of --shutdown-timeout (serve), which is 20s"},
		{"`--max-body-bytes` (1 KiB for the least) up to 1 GiB", ""},
		{"`--max-concurrent` 1 to 65,536", ""},
	} {
		got, _ := docscheck.Check([]docscheck.Doc{docscheck.NewDoc("notes/x.md", tt.text)}, facts)
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("%q: problems %q, want none", tt.text, got)
		case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
			t.Errorf("%q: problems %q, want one holding %q", tt.text, got, tt.want)
		}
	}
}
