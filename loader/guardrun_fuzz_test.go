package loader

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// FuzzGuardRun generates command templates from a small grammar of
// wrappers (with their options, operands and "--"), programs, options
// that take arguments, "--" and placeholders, fills them with hostile
// values, and runs every fill the guard calls ready exactly as
// agent3md run --exec runs it (Fill.Cmd), among the fake programs of
// guardrun_fakes_test.go. It fails when any argument that came from a
// value was read as an option's name, run as code, or run as a program
// (a fake named after the value logged that it ran). The guard may
// refuse more than it must; it must never let one of these through.

// genWrapper is a wrapper with the words that may follow its name before
// the program it runs; {v} there is a placeholder.
type genWrapper struct {
	name     string
	variants []string
}

var genWrappers = []genWrapper{
	{"env", []string{"", "--", "-i", "-i --", "A=B", "-u HOME --", "A={v}", "-u {v}", "{v}"}},
	{"nice", []string{"", "--", "-n 10", "-n 10 --", "-5", "--adjustment=3", "-n {v}", "{v}"}},
	{"timeout", []string{"5", "-- 5", "-s KILL 5", "-k 1 5", "{v}", "-s {v} 5"}},
	{"nohup", []string{"", "--"}},
	{"setsid", []string{"", "-w", "--"}},
	{"xargs", []string{"", "-0", "-n 1 --", "--"}},
	{"flock", []string{"lockf", "-n lockf", "-- lockf", "{v}"}},
	{"sudo", []string{"", "-u root", "-u root --", "-E --", "-u {v}", "{v}"}},
	{"doas", []string{"", "-u root"}},
	{"chroot", []string{"/", "-- /"}},
	{"unshare", []string{"-r", "-r --"}},
	{"nsenter", []string{"-t 1 -m", "-t 1 -m --"}},
	{"setpriv", []string{"--nnp", "--nnp --"}},
	{"caffeinate", []string{"-i", "-i --"}},
	{"busybox", []string{""}},
	{"watch", []string{"-x", "-x -n 1 --", "", "{v}"}},
	{"stdbuf", []string{"-oL", "-oL --"}},
	{"ionice", []string{"-c 3", "-c 3 --"}},
	{"chrt", []string{"-o 0", "-o -- 0"}},
	{"taskset", []string{"1", "-- 1"}},
	{"command", []string{"", "--"}},
	{"runuser", []string{"-u bob --", "-u bob"}},
	{"runner", []string{"", "--", "-q --"}},
}

// genProgram is a program with option words it takes (some take the next
// word as an argument, some glue it).
type genProgram struct {
	name string
	opts []string
}

var genPrograms = []genProgram{
	{"python3", []string{"-u", "-X dev", "-W ignore", "-I", "-X", "-c 'print(1)'"}},
	{"node", []string{"--no-warnings", "-i", "-r"}},
	{"perl", []string{"-w", "-T", "-I"}},
	{"grep", []string{"-e PAT", "-e", "--regexp", "-f", "-i", "-n", "-A 2", "-iA", "-C"}},
	{"rg", []string{"-e PAT", "-e", "--regexp=P", "--smart-case", "--json", "--zzz", "-l"}},
	{"git blame", []string{"-w", "-L 1,2", "-C", "-L"}},
	{"git", []string{"-C .", "--no-pager", "-c"}},
	{"curl", []string{"-s", "-o out", "--max-time"}},
	{"ls", []string{"-l", "-a", "-I"}},
	{"cat", []string{"-n", "-A"}},
	{"mytool", []string{"-a", "-b x", "-b", "--flag", "--name=x"}},
	{"sh -c 'cat -- \"$1\"' sh", nil},
	{"sh -c", nil},
}

// genForms are the shapes a placeholder takes in a program's words.
var genForms = []string{"{v}", "{v}", "{v}", "-e{v}", "--regexp={v}", "--name={v}", "x{v}", "{a}{v}", `"{v}"`, "-b{v}", "--x{v}", "{v}.txt", "-l{v}", "'{v}'"}

// genValues are the hostile values. Each one but the first three carries
// a marker (Q7…) that no template holds, so that its bytes can be found in
// an argument (breach skips the three); the fake directory holds a program
// named after each of them.
var genValues = []string{
	"", "-", "--",
	"-cpwn Q71", "--Q72=pwn", "-Q73", "-VQ74", ";pwn Q75", "$(pwn Q76)", "`pwn Q77`", "a\npwn Q78",
	"'\"Q79\\", "\xffQ7a\xfe", "Q7b\x00x", "pwnQ7c", "-epwn Q7d", "--regexp=Q7e", "-xQ7f", "PATH=Q7g",
	"Q7h", "-iQ7i", " -Q7j", "--preQ7k=pwn", "-sQ7l", "-uQ7m", "lockQ7n",
}

// genDecoder reads grammar choices from the fuzzer's bytes.
type genDecoder struct{ b []byte }

func (d *genDecoder) pick(n int) int {
	if len(d.b) == 0 || n <= 1 {
		return 0
	}
	c := int(d.b[0])
	d.b = d.b[1:]
	return c % n
}

// genTemplate builds a template and its values from the fuzzer's bytes.
func genTemplate(gen []byte) (string, map[string]string) {
	d := &genDecoder{b: gen}
	var words []string
	n := 0
	name := func() string { n++; return fmt.Sprintf("p%d", n-1) }
	fill := func(s string) string {
		for _, ph := range []string{"{a}", "{v}"} {
			for strings.Contains(s, ph) {
				s = strings.Replace(s, ph, "{"+name()+"}", 1)
			}
		}
		return s
	}
	for w := d.pick(3); w > 0; w-- {
		g := genWrappers[d.pick(len(genWrappers))]
		words = append(words, g.name, fill(g.variants[d.pick(len(g.variants))]))
	}
	p := genPrograms[d.pick(len(genPrograms))]
	words = append(words, p.name)
	for k := 1 + d.pick(5); k > 0; k-- {
		switch d.pick(4) {
		case 0:
			if len(p.opts) > 0 {
				words = append(words, p.opts[d.pick(len(p.opts))])
			}
		case 1:
			words = append(words, "--")
		default:
			words = append(words, fill(genForms[d.pick(len(genForms))]))
		}
	}
	if n == 0 {
		words = append(words, fill("{v}"))
	}
	tmpl := strings.Join(strings.Fields(strings.Join(words, " ")), " ")
	if d.pick(4) == 0 {
		tmpl += " ; true" // shell syntax: sh -c runs it
	}
	values := map[string]string{}
	for i := 0; i < n; i++ {
		// One choice past the values leaves the input optional and
		// without a value: the fill drops its word (and an option word
		// before it), which moves the words after it.
		if v := d.pick(len(genValues) + 1); v < len(genValues) {
			values[fmt.Sprintf("p%d", i)] = genValues[v]
		} else {
			values[fmt.Sprintf("p%d", i)] = unset
		}
	}
	return tmpl, values
}

// unset marks an optional input left without a value.
const unset = "\x00unset"

// splitUnset separates the values given from the optional inputs left
// without one.
func splitUnset(values map[string]string) (given map[string]string, optional map[string]bool) {
	given, optional = map[string]string{}, map[string]bool{}
	for k, v := range values {
		if v == unset {
			optional[k] = true
		} else {
			given[k] = v
		}
	}
	return given, optional
}

// fakeDir makes, once, the directory that is the commands' whole PATH:
// a fake under each program's name, sh itself, and a pwn fake under each
// value's name.
var fakeDir = sync.OnceValues(func() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "a3md-fakes-")
	if err != nil {
		return "", err
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return "", err
	}
	if err := os.Symlink(sh, filepath.Join(dir, "sh")); err != nil {
		return "", err
	}
	names := []string{"pwn"}
	for n := range fakes {
		names = append(names, n)
	}
	for _, v := range genValues {
		// Only marked values: a template's own word ("--") may run.
		if strings.Contains(v, "Q7") && !strings.ContainsAny(v, "/\x00") {
			names = append(names, v)
		}
	}
	for _, n := range names {
		if err := os.Symlink(self, filepath.Join(dir, n)); err != nil && !os.IsExist(err) {
			return "", err
		}
	}
	return dir, nil
})

// runGuarded fills tmpl with values; when the guard says the fill is
// ready it runs it as run --exec does and returns the fakes' records.
func runGuarded(t *testing.T, dir, tmpl string, values map[string]string) (*Fill, []fakeRecord) {
	t.Helper()
	s := &agentfile.Skill{Name: "s", HasTool: true, Tool: tmpl}
	given, optional := splitUnset(values)
	for k := range values {
		s.Inputs = append(s.Inputs, agentfile.Input{Name: k, Type: "string", Optional: optional[k]})
	}
	f := fill(s, given)
	return f, runFill(t, dir, f)
}

// runFill runs a ready fill as run --exec does, among the fakes, and
// returns their records.
func runFill(t *testing.T, dir string, f *Fill) []fakeRecord {
	t.Helper()
	cmd := f.Cmd()
	if cmd == nil {
		return nil
	}
	work := t.TempDir()
	log := filepath.Join(work, "log")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Args[0] = cmd.Args[0]
	c.Dir = work
	c.Env = []string{"PATH=" + dir, fakeLogEnv + "=" + log, "HOME=" + work, "LC_ALL=C"}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	_ = c.Run() // a fake's exit status (an unknown option, 127) is no finding
	if ctx.Err() != nil {
		t.Fatalf("%q did not finish in 20s:\n%s", f.Command, out.String())
	}
	b, _ := os.ReadFile(log)
	var recs []fakeRecord
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r fakeRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a fake's record %q: %v", sc.Bytes(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// breach returns what went wrong in one run's records, or "": a pwn
// fake ran, or an option name, code or program run came from a value.
func breach(recs []fakeRecord, values map[string]string) string {
	for _, r := range recs {
		for _, e := range r.Events {
			if e.Kind == "pwn" {
				return fmt.Sprintf("%q ran as a program with %q", r.Prog, r.Argv)
			}
			if e.Arg >= len(r.Argv) {
				continue
			}
			arg := r.Argv[e.Arg]
			for name, v := range values {
				if !strings.Contains(v, "Q7") {
					continue // "", "-", "--": no marker to find them by
				}
				for off := 0; ; {
					i := bytes.Index(arg[off:], []byte(v))
					if i < 0 {
						break
					}
					lo, hi := off+i, off+i+len(v)
					if e.Lo < hi && lo < e.Hi {
						return fmt.Sprintf("%s took {%s}=%q in %q as %s (bytes %d-%d); its arguments %q", r.Prog, name, v, arg, e.Kind, e.Lo, e.Hi, r.Argv)
					}
					off = lo + 1
				}
			}
		}
	}
	return ""
}

func FuzzGuardRun(f *testing.F) {
	dir, err := fakeDir()
	if err != nil {
		f.Skipf("no fake programs: %v", err)
	}
	// exec.Command looks the program up in this process's PATH, as
	// agent3md's does: make it the fakes' directory.
	f.Setenv("PATH", dir)
	for _, sd := range readSeeds(f) {
		f.Add(sd.gen)
	}
	f.Fuzz(func(t *testing.T, gen []byte) {
		tmpl, values := genTemplate(gen)
		fl, recs := runGuarded(t, dir, tmpl, values)
		if why := breach(recs, values); why != "" {
			t.Fatalf("%s\ntemplate %q\nvalues %q\ncommand %q", why, tmpl, values, fl.Command)
		}
	})
}

// seed is one line of testdata/guardrun/seeds.txt: the section it is in
// and the bytes genTemplate reads for it.
type seed struct {
	section string
	gen     []byte
}

// readSeeds reads testdata/guardrun/seeds.txt: "## NAME" starts a
// section, "#" a comment, any other line that is not blank is a seed.
func readSeeds(tb testing.TB) []seed {
	tb.Helper()
	b, err := os.ReadFile("testdata/guardrun/seeds.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var out []seed
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, " \t\r")
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
			continue
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			continue
		}
		gen, err := encodeSeed(line)
		if err != nil {
			tb.Fatalf("seeds.txt: %q: %v", line, err)
		}
		out = append(out, seed{section, gen})
	}
	return out
}

// encodeSeed turns a readable seed line into the bytes genTemplate reads:
//
//	WRAPPER=VARIANT;… | PROGRAM | ITEM;… | sh | "VALUE" "VALUE"…
//
// where an ITEM is "--", "opt:OPTION" or "form:FORM", each as written in
// the grammar's tables, "sh" appends "; true", and the values are Go
// strings, one per placeholder in order ("\x00unset": an optional input
// left without a value).
func encodeSeed(line string) ([]byte, error) {
	f := strings.Split(" "+line+" ", " | ")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	if len(f) != 5 {
		return nil, fmt.Errorf("want 5 fields separated by \" | \", have %d", len(f))
	}
	index := func(list []string, s string) (byte, error) {
		for i, x := range list {
			if x == s {
				return byte(i), nil
			}
		}
		return 0, fmt.Errorf("%q is not in %q", s, list)
	}
	var gen []byte
	var ws []string
	if f[0] != "" {
		ws = strings.Split(f[0], ";")
	}
	gen = append(gen, byte(len(ws)))
	for _, w := range ws {
		name, variant, _ := strings.Cut(w, "=")
		found := false
		for i, g := range genWrappers {
			if g.name == name {
				v, err := index(g.variants, variant)
				if err != nil {
					return nil, err
				}
				gen = append(gen, byte(i), v)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no wrapper %q", name)
		}
	}
	var p genProgram
	for i, g := range genPrograms {
		if g.name == f[1] {
			p = g
			gen = append(gen, byte(i))
		}
	}
	if p.name == "" {
		return nil, fmt.Errorf("no program %q", f[1])
	}
	items := strings.Split(f[2], ";")
	if len(items) < 1 || len(items) > 5 {
		return nil, fmt.Errorf("want 1 to 5 items, have %d", len(items))
	}
	gen = append(gen, byte(len(items)-1))
	for _, it := range items {
		switch {
		case it == "--":
			gen = append(gen, 1)
		case strings.HasPrefix(it, "opt:"):
			v, err := index(p.opts, it[4:])
			if err != nil {
				return nil, err
			}
			gen = append(gen, 0, v)
		case strings.HasPrefix(it, "form:"):
			v, err := index(genForms, it[5:])
			if err != nil {
				return nil, err
			}
			gen = append(gen, 2, v)
		default:
			return nil, fmt.Errorf("item %q", it)
		}
	}
	if f[3] == "sh" {
		gen = append(gen, 0)
	} else {
		gen = append(gen, 1)
	}
	rest := strings.TrimSpace(f[4])
	for rest != "" {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, fmt.Errorf("values: %v", err)
		}
		v, _ := strconv.Unquote(q)
		i, err := index(append(genValues[:len(genValues):len(genValues)], unset), v)
		if err != nil {
			return nil, err
		}
		gen = append(gen, i)
		rest = strings.TrimSpace(rest[len(q):])
	}
	return gen, nil
}

// TestGuardRunSeeds holds the fuzz target's oracle to account: each seed
// the guard must refuse is refused, and run without the guard (the
// template filled by plain quoting, as before it) the fakes catch it;
// each seed it refuses conservatively (it cannot prove the value safe,
// though these fakes would not misuse it) is refused; each seed the guard
// must let through is filled, runs, and is clean.
func TestGuardRunSeeds(t *testing.T) {
	dir, err := fakeDir()
	if err != nil {
		t.Skipf("no fake programs: %v", err)
	}
	t.Setenv("PATH", dir)
	counted := map[string]int{}
	for _, sd := range readSeeds(t) {
		section := sd.section
		tmpl, values := genTemplate(sd.gen)
		counted[section]++
		f, recs := runGuarded(t, dir, tmpl, values)
		switch section {
		case "refused", "refused, conservatively":
			if f.Ready {
				t.Errorf("%q with %q: the guard let it through: %s", tmpl, values, f.Command)
				continue
			}
			// As before the guard: each value quoted, nothing refused.
			given, optional := splitUnset(values)
			bare := &Fill{Command: bareFill(tmpl, given, optional), HasTool: true, Ready: true}
			if why := breach(runFill(t, dir, bare), values); why == "" && section == "refused" {
				t.Errorf("%q with %q run without the guard (%s): the fakes saw nothing wrong", tmpl, values, bare.Command)
			}
		case "runs":
			if !f.Ready || len(recs) == 0 {
				t.Errorf("%q with %q: ready %v, %d records; want it to run: %+v", tmpl, values, f.Ready, len(recs), f)
			} else if why := breach(recs, values); why != "" {
				t.Errorf("%q with %q: %s", tmpl, values, why)
			}
		}
	}
	if counted["refused"] < 12 || counted["runs"] < 15 {
		t.Fatalf("sections: %v", counted)
	}
}

// bareFill is the fill without the guard, for genTemplate's templates
// (words separated by single spaces, placeholders only in words of their
// own text): the words of unvalued optional inputs dropped, with an
// option word right before a word that is only such a placeholder, then
// the spec's command() (ExpandTemplate).
func bareFill(tmpl string, given map[string]string, optional map[string]bool) string {
	words := strings.Split(tmpl, " ")
	keep := make([]bool, len(words))
	for i, w := range words {
		keep[i] = true
		ms := shelltmpl.Find(w)
		all := len(ms) > 0
		for _, m := range ms {
			all = all && optional[m.Name]
		}
		if !all {
			continue
		}
		keep[i] = false
		if len(ms) == 1 && ms[0].Start == 0 && ms[0].End == len(w) && i > 1 {
			if p := words[i-1]; len(p) > 1 && p[0] == '-' && p != "--" && len(shelltmpl.Find(p)) == 0 {
				keep[i-1] = false
			}
		}
	}
	var kept []string
	for i, w := range words {
		if keep[i] {
			kept = append(kept, w)
		}
	}
	return ExpandTemplate(strings.Join(kept, " "), given)
}
