package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/skillsdir"
)

// fakeFolder is a skills folder with a pdf skill, and the fake server set
// to answer reads with its SKILL.md.
func fakeFolder(t *testing.T, mode string) (folderTarget, *folderProbe) {
	t.Helper()
	dir := t.TempDir()
	skill := filepath.Join(dir, "pdf", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		t.Fatal(err)
	}
	want := []byte("---\nname: pdf\ndescription: Read PDFs.\n---\nUse \"pdftotext\".\n")
	if err := os.WriteFile(skill, want, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, mode)
	t.Setenv(fakeReadEnv, skill)
	target := folderTarget{Name: "fake", Dir: dir, Skills: 1, Skill: "pdf", route: func(int) string { return "search pdf" }}
	return target, &folderProbe{target: target, timeout: 10 * time.Second, exitWait: 10 * time.Second, reads: 5, want: want}
}

// fakeContender runs the test binary as a fake folder server.
func fakeContender(label string, exits bool) folderContender {
	return folderContender{label: label, routes: true, exits: exits,
		argv: func(dir, _ string) []string { return []string{os.Args[0], dir} }}
}

func TestFolderSessionAgainstFakeServers(t *testing.T) {
	tests := []struct {
		name, mode string
		exits      bool
		wantErr    string
	}{
		{"exits at EOF", "ok", true, ""},
		{"notifications between answers", "notify", true, ""},
		{"reference that never exits is killed", "linger", false, ""},
		{"ours must exit", "linger", true, "did not exit within"},
		{"hung", "hang", true, "server hung"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := fakeFolder(t, tt.mode)
			if tt.mode == "linger" {
				p.exitWait = 300 * time.Millisecond
			}
			if tt.mode == "hang" {
				p.timeout = 300 * time.Millisecond
			}
			r := &folderResult{Samples: map[string]map[string][]float64{}, ReadBytes: map[string]int{}}
			err := p.session(fakeContender("ours", tt.exits), t.TempDir(), r)
			if !matches(err, tt.wantErr) {
				t.Fatalf("session: err = %v, want %q", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			for _, key := range []string{"init", "firstRead", "read", "ping", "rss"} {
				if s := r.Samples["ours"][key]; len(s) != 1 || s[0] <= 0 {
					t.Errorf("%s samples = %v, want one positive", key, s)
				}
			}
			if r.ReadBytes["ours"] != len(p.want) {
				t.Errorf("read %d bytes, want %d", r.ReadBytes["ours"], len(p.want))
			}
		})
	}
}

func TestFolderReadChecksTheBytes(t *testing.T) {
	_, p := fakeFolder(t, "ok")
	p.want = []byte("something else")
	r := &folderResult{Samples: map[string]map[string][]float64{}, ReadBytes: map[string]int{}}
	err := p.session(fakeContender("ours", true), t.TempDir(), r)
	if err == nil || !strings.Contains(err.Error(), "differ from the 14 of its SKILL.md on disk") {
		t.Fatalf("session with a wrong answer: err = %v", err)
	}
}

func TestFolderFirstRoute(t *testing.T) {
	_, p := fakeFolder(t, "ok")
	msec, rss, err := p.firstRoute(fakeContender("ours", true), t.TempDir(), 0)
	if err != nil || msec <= 0 || rss <= 0 {
		t.Fatalf("firstRoute = %v ms, %v MB, %v; want positive figures", msec, rss, err)
	}
}

// TestMeasureFolder runs the whole alternation with two fake servers, one
// without route_skill, and checks who got which rows.
func TestMeasureFolder(t *testing.T) {
	target, _ := fakeFolder(t, "ok")
	o := &options{runs: 3, coldRuns: 2, reads: 3, exitWait: 10 * time.Second, timeout: 10 * time.Second}
	ref := fakeContender("reference", false)
	ref.routes = false
	r := measureFolder(o, []folderContender{fakeContender("ours", true), ref}, target, t.TempDir(), io.Discard)
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %v", r.Errors)
	}
	counts := map[string]int{"init": 3, "read": 3, "rss": 3, "coldRoute": 2, "warmRoute": 3}
	for key, n := range counts {
		if got := len(r.Samples["ours"][key]); got != n {
			t.Errorf("ours has %d %s samples, want %d", got, key, n)
		}
	}
	if got := len(r.Samples["reference"]["read"]); got != 3 {
		t.Errorf("reference has %d read samples, want 3", got)
	}
	if _, ok := r.Samples["reference"]["coldRoute"]; ok {
		t.Errorf("a reference without route_skill was asked to route")
	}
}

func TestFormatGoal(t *testing.T) {
	tests := []struct {
		name      string
		goal      float64
		ours, ref cmpCell
		want      string
	}{
		{"met", 0.1, cmpCell{10, true}, cmpCell{300, true}, "≤ 0.10× met"},
		{"at the goal", 0.5, cmpCell{5, true}, cmpCell{10, true}, "≤ 0.50× met"},
		{"missed", 0.05, cmpCell{200, true}, cmpCell{450, true}, "≤ 0.05× MISSED"},
		{"no goal", 0, cmpCell{1, true}, cmpCell{2, true}, ""},
		{"no reference", 0.1, cmpCell{1, true}, cmpCell{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatGoal(tt.goal, tt.ours, tt.ref); got != tt.want {
				t.Errorf("formatGoal = %q, want %q", got, tt.want)
			}
		})
	}
}

func folderFixture() *folderResult {
	r := &folderResult{folderTarget: folderTarget{Name: "anthropics/skills", Dir: "/x/skills", Skills: 17, Skill: "pdf"},
		Samples: map[string]map[string][]float64{}, ReadBytes: map[string]int{"ours": 8072, "reference": 8072},
		Errors: []string{"reference, serving: server hung"}}
	for _, v := range []float64{12, 14, 13} {
		r.Samples.add("ours", "init", v)
	}
	r.Samples.add("reference", "init", 260)
	r.Samples.add("ours", "read", 230)
	r.Samples.add("reference", "read", 460)
	r.Samples.add("ours", "coldRoute", 25)
	r.Samples.add("floor", "read", 46)
	return r
}

func TestWriteFolders(t *testing.T) {
	o := &options{runs: 3, coldRuns: 3, reads: 200, refFolder: "node dist/index.js", floor: true}
	var b bytes.Buffer
	if err := writeFolders(&b, o, []*folderResult{folderFixture()}); err != nil {
		t.Fatal(err)
	}
	out := squeeze(b.String())
	for _, want := range []string{
		"reference: node dist/index.js DIR",
		"anthropics/skills  spawn → initialize  13.0 ms  260.0 ms  0.05×  ≤ 0.10× met",
		"anthropics/skills  resources/read SKILL.md, round trip  230.0 µs  460.0 µs  0.50×  ≤ 0.05× MISSED  46.0 µs  0.10×",
		"anthropics/skills  spawn → initialize  13.0 ms  260.0 ms  0.05×  ≤ 0.10× met  —  —",
		"floor / reference bounds every ratio",
		"anthropics/skills  spawn → first route, cold  25.0 ms  —  —",
		"read skill://pdf; ours answered 8072 bytes; reference answered 8072 bytes",
		"FAILED anthropics/skills: reference, serving: server hung",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "peak RSS after") {
		t.Errorf("a metric neither side measured has a row:\n%s", b.String())
	}
}

func TestWriteFolderJSON(t *testing.T) {
	var b bytes.Buffer
	if err := writeFolderJSON(&b, []*folderResult{folderFixture()}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Name    string
		Medians []struct {
			Metric          string
			Ours, Ref, Goal *float64
			Ratio           *float64
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	m := got[0].Medians
	if got[0].Name != "anthropics/skills" || len(m) != 3 || m[0].Metric != "init" || *m[0].Ours != 13 || *m[0].Goal != 0.1 {
		t.Errorf("medians = %+v", got)
	}
	if m[2].Metric != "coldRoute" || m[2].Ratio != nil || m[2].Goal != nil {
		t.Errorf("coldRoute = %+v, want no ratio and no goal", m[2])
	}
}

func TestParseFlagsFolder(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"-folder", "x", "-ref-folder", "node i.js"}, ""},
		{[]string{"-folder-sizes", "10000,20"}, ""},
		{[]string{"-ref-folder", "node i.js"}, "needs a folder to serve"},
		{[]string{"-folder-sizes", "ten"}, `-folder-sizes: "ten" is not a positive skill count`},
		{[]string{"-folder", "x", "-reads", "0"}, "-reads must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := parseFlags(tt.args, io.Discard)
			if !matches(err, tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if err == nil && o.folderSkill != "pdf" {
				t.Errorf("-folder-skill defaults to %q, want pdf", o.folderSkill)
			}
		})
	}
}

func TestNamedFolder(t *testing.T) {
	target, _ := fakeFolder(t, "ok")
	nested := filepath.Join(target.Dir, "group", "deep", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(nested), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nested, []byte("---\nname: deep\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		folder, skill string
		skills        int
		err           string
	}{
		{target.Dir, "pdf", 2, ""},
		{target.Dir, "docx", 0, "-folder-skill docx"},
		{t.TempDir(), "pdf", 0, "no SKILL.md in it"},
		{nested, "pdf", 0, "is not a directory"},
	}
	for _, tt := range tests {
		got, err := namedFolder(&options{folder: tt.folder, folderSkill: tt.skill, folderRoute: "merge pdfs"})
		if !matches(err, tt.err) {
			t.Errorf("namedFolder(%s, %s): err = %v, want %q", tt.folder, tt.skill, err, tt.err)
			continue
		}
		if err == nil && (got.Skills != tt.skills || got.route(3) != "merge pdfs") {
			t.Errorf("namedFolder(%s) = %+v, want %d skills", tt.folder, got, tt.skills)
		}
	}
}

// TestGenSkills pins the generator: deterministic, a folder that scans
// with no findings, names as the agent generator's, and the features the
// bench means to exercise (triggers, links between skills, references).
func TestGenSkills(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	const n = 120
	gen := filepath.Join("..", "gen-skills.py")
	a, err := ensureFolder(gen, t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(t.TempDir(), "again")
	if out, err := exec.Command("python3", gen, "120", b).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if ta, tb := tree(t, a), tree(t, b); ta != tb {
		t.Errorf("two runs of the generator differ")
	}
	if out, err := exec.Command("python3", gen, "5", b).CombinedOutput(); err == nil || !strings.Contains(string(out), "exists") {
		t.Errorf("generating into an existing folder: %v %s; want a refusal", err, out)
	}
	cat, err := skillsdir.Scan(context.Background(), []string{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cat.Findings() {
		t.Errorf("finding: %v", f)
	}
	if cat.Len() != n {
		t.Fatalf("scanned %d skills, want %d", cat.Len(), n)
	}
	w, err := loadWords(filepath.Join("..", "gen-agent.py"))
	if err != nil {
		t.Fatal(err)
	}
	if first := w.forSize(n).skillName(0, n); first != "search-report" {
		t.Errorf("first skill name %q", first)
	} else if _, ok := cat.Skill(first); !ok {
		t.Errorf("no skill %q, the one the bench reads", first)
	}
	var deps, refs, triggers int
	for _, s := range cat.Skills() {
		deps += min(len(s.Deps), 1)
		triggers += min(len(s.Triggers), 1)
		for _, f := range s.Files {
			if f.Path == "references/notes.md" {
				refs++
			}
		}
	}
	if triggers != n || deps < n/10 || refs < n/10 {
		t.Errorf("%d skills with triggers, %d with links to others, %d with references; want all, and at least %d of each other", triggers, deps, refs, n/10)
	}
}

// tree returns every file of dir with its content, for comparison.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		b.WriteString(rel + "\n" + string(data) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestFloorServer(t *testing.T) {
	target, _ := fakeFolder(t, "ok")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"resources/read","params":{"uri":"skill://pdf"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://nope"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	if code := floorServer(target.Dir, strings.NewReader(in), &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d answers, want 5 (none to the notification):\n%s", len(lines), out.String())
	}
	var read struct {
		ID     string
		Result struct{ Contents []struct{ Text string } }
	}
	if err := json.Unmarshal([]byte(lines[1]), &read); err != nil || read.ID != "two" || len(read.Result.Contents) != 1 ||
		!strings.HasPrefix(read.Result.Contents[0].Text, "---\nname: pdf\n") {
		t.Errorf("read answer %s: %v", lines[1], err)
	}
	for i, want := range []string{`"error":{"code":-32002`, `"code":-32601`, `"id":5,"result":{}`} {
		if !strings.Contains(lines[2+i], want) {
			t.Errorf("answer %d = %s, want %s", 2+i, lines[2+i], want)
		}
	}
}

// TestFloorContender runs the floor as the folder mode does: the test
// binary again, with floorEnv set for it alone.
func TestFloorContender(t *testing.T) {
	_, p := fakeFolder(t, "")
	f, err := floorFolder()
	if err != nil {
		t.Fatal(err)
	}
	r := &folderResult{Samples: map[string]map[string][]float64{}, ReadBytes: map[string]int{}}
	if err := p.session(f, t.TempDir(), r); err != nil {
		t.Fatal(err)
	}
	if r.ReadBytes["floor"] != len(p.want) || len(r.Samples["floor"]["read"]) != 1 {
		t.Errorf("floor session: %+v", r)
	}
	if os.Getenv(floorEnv) != "" {
		t.Errorf("%s leaked into the bench's own environment", floorEnv)
	}
}
