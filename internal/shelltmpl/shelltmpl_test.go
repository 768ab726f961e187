package shelltmpl

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAnalyzeSafe(t *testing.T) {
	tests := []struct {
		tmpl  string
		want  []string // name:context:role per placeholder
		plain bool
	}{
		{"rg --line-number {pattern} {path}", []string{"pattern:u:pos", "path:u:pos"}, true},
		{"rg -e {p} -- {path}", []string{"p:u:prov@-e", "path:u:end"}, true},
		{"go test -count=1 {pkgs}", []string{"pkgs:u:pos"}, true},
		{"curl --max-time={t} {url}", []string{"t:u:val", "url:u:pos"}, true},
		{"rg --json --smart-case {pattern} {path}", []string{"pattern:u:pos", "path:u:pos"}, true},
		{"rg --json --smart-case --regexp={pattern} -- {path}", []string{"pattern:u:val", "path:u:end"}, true},
		{"mytool --json --smart-case {pattern} {path}", []string{"pattern:u:opt@--smart-case", "path:u:pos"}, true},
		{"rg -e{p} -m{q} --regexp={s} {u}", []string{"p:u:prov", "q:u:prov", "s:u:val", "u:u:pos"}, true},
		{"t {a}-e{p} {b}--n={q}", []string{"a:u:pos", "p:u:glue<a", "b:u:pos", "q:u:val"}, true},
		{"rg -- -e{p} --n={q}", []string{"p:u:emb", "q:u:val"}, true},
		{"t ./{p} name:{q} a-{r}", []string{"p:u:emb", "q:u:emb", "r:u:emb"}, true},
		{`t '--n='{q} "--"n={r} "\-e"{u} ''{v}`, []string{"q:u:val", "r:u:val", "u:u:emb", "v:u:pos"}, false},
		{`t \{a}-e{p} x\{b}{q} \\-e{x}`, []string{"p:u:emb", "q:u:emb", "x:u:emb"}, false},
		{"curl {host}:{port}/x", []string{"host:u:pos", "port:u:emb"}, true},
		{"x {a}{b}", []string{"a:u:pos", "b:u:pos<a"}, true},
		{`echo 'x {a} y' "x {b} y"`, []string{"a:s:emb", "b:d:emb"}, false},
		{`echo "{a}" '{b}'`, []string{"a:d:pos", "b:s:pos"}, false},
		{`t -e "{a}" "--x" {b}`, []string{"a:d:opt@-e", "b:u:opt@--x"}, false},
		{`echo \{a} {a}`, []string{"a:u:pos"}, false},
		{`echo "\{a}" "\\{b}"`, []string{"b:d:emb"}, false},
		{"X={v} cmd > {out}", []string{"v:u:none", "out:u:none"}, false},
		{"export X={v}; cd {d} && make", []string{"v:u:none", "d:u:pos"}, false},
		{"git diff --stat {base}...{head}", []string{"base:u:pos", "head:u:emb"}, true},
		{"kubectl -n {ns} --to-revision=3 {rev}", []string{"ns:u:opt@-n", "rev:u:pos"}, true},
		{"ls *.go {d}", []string{"d:u:pos"}, false},
		{"if test -n {a}; then echo {b}; fi", []string{"a:u:opt@-n", "b:u:pos"}, false},
		{"rg x", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.tmpl, func(t *testing.T) {
			a := Analyze(tt.tmpl)
			if len(a.Problems) > 0 {
				t.Fatalf("problems: %v", a.Problems)
			}
			var got []string
			for _, p := range a.Placeholders {
				s := p.Name + ":" + "usd"[p.Context:p.Context+1] + ":" + []string{"emb", "pos", "opt", "end", "none", "val", "glue", "prov"}[p.Role]
				if len(p.Preceding) > 0 {
					s += "<" + strings.Join(p.Preceding, ",")
				}
				if p.Option != "" {
					s += "@" + p.Option
				}
				got = append(got, s)
				if tt.tmpl[p.Start:p.End] != "{"+p.Name+"}" {
					t.Errorf("%s: range %d-%d is %q", p.Name, p.Start, p.End, tt.tmpl[p.Start:p.End])
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("placeholders %v, want %v", got, tt.want)
			}
			if a.Plain != tt.plain {
				t.Errorf("Plain = %v, want %v", a.Plain, tt.plain)
			}
		})
	}
}

func TestAnalyzeUnsafe(t *testing.T) {
	tests := []struct{ tmpl, reason string }{
		{`echo "Subject: $(echo "{msg}" | head -1)"`, "$(…) command substitution"},
		{"echo \"`echo {v}`\"", "`…` command substitution"},
		{`echo "${X:-{v}}"`, "${…} parameter expansion"},
		{`echo ${X:-{v}}`, "${…} parameter expansion"},
		{`echo $(echo {v})`, "$(…) command substitution"},
		{`echo "$HOME {v}"`, `"…" string that also holds`},
		{`echo {v}$HOME`, "its word also holds"},
		{`echo ${v}`, "parameter expansion"},
		{`echo $((1 + {n}))`, "arithmetic"},
		{"cat <<EOF\n{v}\nEOF", "here-document"},
		{"cat <<'EOF'\n{v}\nEOF", "here-document"},
		{"echo hi # {v}", "comment"},
		{`echo $'a {v}'`, "$'…'"},
		{`[[ {v} == x ]]`, "[[ … ]] test"},
		{`case {v} in x) ;; esac`, "case"},
		{`for f in {v}; do echo; done`, "for loop"},
		{`echo "{v}`, "not valid shell syntax"},
		{`diff <(echo {v}) x`, "process substitution"},
		{`a=({v})`, "array"},
		{`declare {v}`, "variable name of declare"},
		{`export {v}`, "variable name of declare"},
		// Bash and dash end a $'…' string's quote in different
		// places, so the rest of the line is read differently.
		{`echo $'\'' {v} #'`, "$'…' string at byte 6, which bash and sh (dash) read differently"},
		{`echo {v} $'x'`, "$'…' string"},
		{"cat <<{v}\nx\n{v}", "here-document"},
		{"env {A=1,sh} -c {v}", "brace expansion ({A=1,sh}) at byte 5"},
		{"rm {a,{v}}", "brace expansion ({a,{v}}) at byte 4"},
		{"cat -- &> log rm {v}", "holds &> at byte 8, which bash reads as a redirection"},
		{"cat {v} &>> log", "holds &>>"},
	}
	for _, tt := range tests {
		t.Run(tt.tmpl, func(t *testing.T) {
			a := Analyze(tt.tmpl)
			if len(a.Problems) == 0 {
				t.Fatalf("no problem; placeholders %+v", a.Placeholders)
			}
			if a.Plain {
				t.Error("an unsafe template is Plain")
			}
			if msg := a.Problems[0].Error(); !strings.Contains(msg, tt.reason) {
				t.Errorf("problem %q does not say %q", msg, tt.reason)
			}
		})
	}
}

// TestSpans: each placeholder carries, from the syntax tree, what leaving
// its optional input out removes (its word with the blanks before it, or
// after it for a first item), whether it is its word's whole text, and the
// option word before it. The filler reads no template text but these.
func TestSpans(t *testing.T) {
	type want struct {
		word, option string
		whole        bool
	}
	for _, tt := range []struct {
		tmpl string
		want want
	}{
		{"db query {q} --limit {x}", want{" {x}", " --limit", true}},
		{"db query -- {x}", want{" {x}", "", true}},
		{"db -n {x}", want{" {x}", " -n", true}},
		{`db -n "{x}"`, want{` "{x}"`, "", false}},
		{"db x{x}y z", want{" x{x}y", "", false}},
		{"db > {x} z", want{" > {x}", "", true}},
		{"X={x} db z", want{"X={x} ", "", true}},
		{`echo "$(date "+%H'%M")" -o {x}`, want{" {x}", " -o", true}},
		{"cat <<'EOF' -o {x}\nit's\nEOF", want{" {x}", " -o", true}},
		{"if true; then db \\\n  -o {x}; fi # it's", want{" {x}", " \\\n  -o", true}},
		{"db -o {a}{x}", want{" {a}{x}", "", false}},
	} {
		a := Analyze(tt.tmpl)
		if len(a.Problems) > 0 {
			t.Fatalf("%q: %v", tt.tmpl, a.Problems)
		}
		for _, p := range a.Placeholders {
			if p.Name != "x" {
				continue
			}
			got := want{tt.tmpl[p.Word.Start:p.Word.End], "", p.Whole}
			if p.OptionWord != (Span{}) {
				got.option = tt.tmpl[p.OptionWord.Start:p.OptionWord.End]
			}
			if got != tt.want {
				t.Errorf("%q: {x} %+v, want %+v", tt.tmpl, got, tt.want)
			}
		}
	}
}

func BenchmarkAnalyze(b *testing.B) {
	for range b.N {
		Analyze("go test -count=1 -run {pattern} {packages}")
	}
}

// TestSimpleMatchesParser checks the parser-free path against the parser
// on random templates of plain words, options, "--", "=", placeholders,
// wrappers and interpreters: wherever the fast path answers, it answers
// exactly as the parser does, and Problems (which allocates nothing on a
// plain template) always says what Analyze does.
func TestSimpleMatchesParser(t *testing.T) {
	tokens := []string{"cmd", "go", "-e", "--flag", "-n=1", "--x=y", "--", "-", "a/b.c", "{a}", "{b}", "x{a}", "{a}{b}", "{b}:{a}", "--f={a}", "-e{a}", "-{b}", "--{a}", "./{b}", "{a}-x", "=", "a=b", "if", "eval", "time", " ", "\t", "  ", "a^b", "%s", "@x", "+1", "a,b", "_.-",
		"env", "nice", "-n", "10", "timeout", "5s", "sudo", "-u", "xargs", "python3", "-c", "sh", "grep", "rg", "git", "blame", "-L", "find", "-exec", "flock", "A=B", "-i", "watch", "-x", "busybox", "--regexp", "--pre={a}", "-e{b}", "runuser", "curl", "--max-time"}
	rng := rand.New(rand.NewSource(5))
	answered := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.Intn(7) {
			b.WriteString(tokens[rng.Intn(len(tokens))])
			if rng.Intn(4) > 0 {
				b.WriteByte(' ')
			}
		}
		tmpl := b.String()
		if got, want := Problems(tmpl), Analyze(tmpl).Problems; !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: Problems %v, Analyze %v", tmpl, got, want)
		}
		ms := Find(tmpl)
		fast, ok := analyzeSimple(tmpl, ms)
		if !ok {
			continue
		}
		answered++
		slow := analyzeParsed(tmpl, ms)
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nsimple %+v\nparser %+v", tmpl, fast, slow)
		}
	}
	if answered < 5000 {
		t.Fatalf("the fast path answered only %d templates", answered)
	}
}

func TestEvalRefused(t *testing.T) {
	if a := Analyze("eval {cmd}"); len(a.Problems) != 1 || !strings.Contains(a.Problems[0].Reason, "eval") {
		t.Fatalf("eval: %+v", a)
	}
}

func TestProblemsMatchesAnalyze(t *testing.T) {
	for _, tmpl := range []string{"", " ", "rg {p} .", "eval {p}", "eval", "if {p}", "X=1 {p}", "{p}=1 x", "a {b", "echo $({p})", "cmd\t-e {p}", "time", "a}b {p}"} {
		got, want := Problems(tmpl), Analyze(tmpl).Problems
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: Problems %v, Analyze %v", tmpl, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Problems("go test -count=1 -run {pattern} {packages}") }); n != 0 {
		t.Errorf("Problems allocates %v times on a plain template", n)
	}
}

// FuzzAnalyze: any template is analysed without a panic; each placeholder
// found is filed once at most (escaped ones nowhere), at its true range;
// and Problems agrees with Analyze.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"rg {p} {q}", `echo "$(echo "{m}")"`, "cat <<E\n{x}\nE", `a \{b} "\{c}" '{d}'`, "${x:-{y}}", "eval {c}", "{a}={b} c", "x # {c}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		done := make(chan *Template, 1)
		var probs []Problem
		go func() { probs = Problems(tmpl); done <- Analyze(tmpl) }()
		var a *Template
		select {
		case a = <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("Analyze(%q) takes more than 3s", tmpl)
		}
		seen := map[int]bool{}
		for _, p := range a.Placeholders {
			if seen[p.Start] || p.End > len(tmpl) || tmpl[p.Start:p.End] != "{"+p.Name+"}" {
				t.Fatalf("bad placeholder %+v", p)
			}
			seen[p.Start] = true
		}
		for _, p := range a.Problems {
			if p.Name != "" && (seen[p.Start] || tmpl[p.Start:p.Start+len(p.Name)+2] != "{"+p.Name+"}") {
				t.Fatalf("bad problem %+v", p)
			}
			seen[p.Start] = true
		}
		if a.Plain && len(a.Problems) > 0 {
			t.Fatal("Plain with problems")
		}
		if got := probs; !reflect.DeepEqual(got, a.Problems) {
			t.Fatalf("Problems %v, Analyze %v", got, a.Problems)
		}
	})
}

// BenchmarkProblems is the validator's per-skill cost on plain templates:
// an unknown program, a known one with --, and a wrapper.
func BenchmarkProblems(b *testing.B) {
	for _, tmpl := range []string{"go test -count=1 -run {pattern} {packages}", "rg --json --smart-case --regexp={pattern} -- {path}", "nice -n 10 python3 -- {script}"} {
		b.Run(strings.Fields(tmpl)[0], func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				Problems(tmpl)
			}
		})
	}
}
