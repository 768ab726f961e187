package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agent3md/agent3md/skillsdir"
)

// severityCase is one rule of docs/skill-folders.md §3 and a skill that
// breaks it: build writes the folder ROOT/subject (and what else the rule
// needs) beside a good skill.
type severityCase struct {
	rule  string
	build func(t *testing.T, root, dir string)
}

// severityCases hold one fixture per rule. Each breaks its rule and, as
// far as it can, no other.
func severityCases() []severityCase {
	fm := func(extra string) func(t *testing.T, root, dir string) {
		return func(t *testing.T, root, dir string) {
			write(t, filepath.Join(dir, "SKILL.md"), "---\nname: subject\ndescription: The subject.\n"+extra+"---\nBody.\n")
		}
	}
	raw := func(text string) func(t *testing.T, root, dir string) {
		return func(t *testing.T, root, dir string) { write(t, filepath.Join(dir, "SKILL.md"), text) }
	}
	// withFile is the valid subject skill plus what more writes.
	withFile := func(more func(t *testing.T, dir string)) func(t *testing.T, root, dir string) {
		return func(t *testing.T, root, dir string) {
			fm("")(t, root, dir)
			more(t, dir)
		}
	}
	return []severityCase{
		{skillsdir.RuleSkillMD, func(t *testing.T, root, dir string) {
			big := "---\nname: subject\ndescription: Too big.\n---\n" + strings.Repeat("x", int(skillsdir.DefaultMaxFileBytes))
			write(t, filepath.Join(dir, "SKILL.md"), big)
		}},
		{skillsdir.RuleSkillMDCase, func(t *testing.T, root, dir string) {
			write(t, filepath.Join(dir, "skill.md"), "---\nname: subject\ndescription: Lower case.\n---\n")
		}},
		{skillsdir.RuleFrontmatter, raw("No frontmatter.\n")},
		{skillsdir.RuleYAMLAlias, raw("---\nname: subject\ndescription: &d The subject.\nlicense: *d\n---\n")},
		{skillsdir.RuleYAMLValue, raw("---\nname: subject\ndescription: The subject.\ndescription: Twice.\n---\n")},
		{skillsdir.RuleName, raw("---\nname: Subject\ndescription: The subject.\n---\n")},
		{skillsdir.RuleNameMismatch, raw("---\nname: other\ndescription: The subject.\n---\n")},
		{skillsdir.RuleDescription, raw("---\nname: subject\n---\n")},
		{skillsdir.RuleMetadataKey, fm("metadata:\n  triggers: [a, b]\n")},
		{skillsdir.RuleInputs, fm("metadata:\n  inputs: \"p:path\"\n")},
		{skillsdir.RuleTool, fm("metadata:\n  tool: \"echo {p}\"\n")},
		{skillsdir.RuleNameClash, func(t *testing.T, root, dir string) {
			fm("")(t, root, dir)
			fm("")(t, root, filepath.Join(root, "again", "subject"))
		}},
		// The public claude-api skill's description has 1,068 characters.
		{skillsdir.RuleDescriptionLength, raw("---\nname: subject\ndescription: " + strings.Repeat("d", 1068) + "\n---\n")},
		{skillsdir.RuleDescriptionControl, raw("---\nname: subject\ndescription: \"a \\e[2J b\"\n---\n")},
		{skillsdir.RuleCompatibility, fm("compatibility: " + strings.Repeat("c", 501) + "\n")},
		{skillsdir.RuleLicense, fm("license: [MIT]\n")},
		{skillsdir.RuleMetadata, fm("metadata:\n  skill-contributors: [a, b]\n")},
		{skillsdir.RuleAllowedTools, fm("allowed-tools: {a: b}\n")},
		{skillsdir.RuleUnknownKey, fm("version: \"1\"\n")},
		{skillsdir.RuleYAMLTimestamp, fm("metadata:\n  created: 2024-01-02\n")},
		{skillsdir.RuleYAMLBool, fm("metadata:\n  stable: yes\n")},
		{skillsdir.RuleFileTooLarge, withFile(func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "big.bin"), skillsdir.DefaultMaxFileBytes+1)
		})},
		{skillsdir.RuleSpecialFile, withFile(func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "sub", "a.md"), "a\n")
			symlink(t, "sub", filepath.Join(dir, "linked"))
		})},
		{skillsdir.RuleSymlinkEscape, withFile(func(t *testing.T, dir string) {
			symlink(t, filepath.Join("..", "..", "outside.md"), filepath.Join(dir, "out.md"))
		})},
		{skillsdir.RuleFileName, withFile(func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "caf\xe9.txt"), []byte("x"), 0o644); err != nil {
				t.Skipf("this file system refuses a name that is not UTF-8: %v", err)
			}
		})},
		{skillsdir.RuleTooManyFiles, withFile(func(t *testing.T, dir string) {
			for i := range skillsdir.DefaultMaxFilesPerSkill + 1 {
				write(t, filepath.Join(dir, "many", fmt.Sprintf("%03d.md", i)), "x")
			}
		})},
		{skillsdir.RuleSkillTooLarge, withFile(func(t *testing.T, dir string) {
			for i := range int(skillsdir.DefaultMaxSkillBytes/skillsdir.DefaultMaxFileBytes) + 1 {
				sparse(t, filepath.Join(dir, fmt.Sprintf("part%02d.bin", i)), skillsdir.DefaultMaxFileBytes)
			}
		})},
		// Mode bits do not stop root, which tests may run as: a folder
		// past the walk's depth is the other unreadable case.
		{skillsdir.RuleUnreadable, withFile(func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, strings.Repeat("d/", 20), "deep.md"), "x")
		})},
		{skillsdir.RuleNestedTooDeep, withFile(func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "a", "b", "c", "deep", "SKILL.md"), "---\nname: deep\ndescription: Deep.\n---\n")
		})},
		{skillsdir.RuleBrokenLink, raw("---\nname: subject\ndescription: The subject.\n---\nSee [notes](references/missing.md).\n")},
	}
}

// severityUntested are the rules no fixture here can break, and why.
var severityUntested = map[string]string{
	skillsdir.RuleTooManySkills: "MaxSkills is 100,000 and no command has a flag for it; skillsdir's scan tests break it with a small limit",
}

// TestSeverityAgrees: for every rule, validate, import, mcp and serve
// agree on its one severity (docs/skill-folders.md §3). An error:
// validate exits 1, import skips the skill and counts it, mcp and serve
// leave it out and log the finding; a warning: validate exits 0 and
// prints it, import keeps the skill and prints it, mcp and serve serve the
// skill and log it. A rule that makes
// the whole scan fail (two folders with one name) stops every command.
func TestSeverityAgrees(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no well-known folder joins in
	covered := map[string]bool{}
	for _, tc := range severityCases() {
		covered[tc.rule] = true
		t.Run(tc.rule, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "skills")
			write(t, filepath.Join(root, "good", "SKILL.md"), "---\nname: good\ndescription: A good skill.\n---\nBody.\n")
			write(t, filepath.Join(base, "outside.md"), "outside\n")
			tc.build(t, root, filepath.Join(root, "subject"))
			sev := skillsdir.SeverityOf(tc.rule)
			if tc.rule == skillsdir.RuleNameClash {
				checkScanFails(t, root)
				return
			}
			checkValidate(t, root, tc.rule, sev)
			checkImport(t, root, tc.rule, sev)
			checkMCP(t, root, tc.rule, sev)
			checkServe(t, root, tc.rule, sev)
		})
	}
	for _, r := range skillsdir.Rules() {
		if !covered[r] && severityUntested[r] == "" {
			t.Errorf("rule %s has no fixture here; add one to severityCases", r)
		}
	}
}

// checkValidate: exit 1 for an error, 0 for a warning, and the finding
// printed with its severity.
func checkValidate(t *testing.T, root, rule string, sev skillsdir.Severity) {
	t.Helper()
	code, out, errOut := cli(t, "validate", root)
	want := 0
	if sev == skillsdir.SeverityError {
		want = 1
	}
	if code != want {
		t.Errorf("validate: exit %d, want %d for %s %s\n%s%s", code, want, sev, rule, out, errOut)
	}
	if !strings.Contains(out, string(sev)+" ["+rule+"]") {
		t.Errorf("validate does not print %s [%s]:\n%s", sev, rule, out)
	}
}

// importSummary is import's last line: its skill and skip counts.
var importSummary = regexp.MustCompile(`: (\d+) skills, \d+ links between them, \d+ files listed, (\d+) broken skills skipped`)

// checkImport: an error skips the subject and counts it; a warning keeps
// it. Either way the finding is printed with its severity and rule.
func checkImport(t *testing.T, root, rule string, sev skillsdir.Severity) {
	t.Helper()
	code, out, errOut := cli(t, "import", "-o", "-", root)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	m := importSummary.FindStringSubmatch(errOut)
	wantSkills, wantSkipped := "2", "0"
	if sev == skillsdir.SeverityError {
		wantSkills, wantSkipped = "1", "1"
	}
	if m == nil || m[1] != wantSkills || m[2] != wantSkipped {
		t.Errorf("import of a %s %s: summary %q, want %s skills and %s skipped\n%s", sev, rule, m, wantSkills, wantSkipped, errOut)
	}
	if kept := strings.Contains(out, `label="subject"`); kept != (sev == skillsdir.SeverityWarning) {
		t.Errorf("import of a %s %s: subject imported = %v", sev, rule, kept)
	}
	if !loggedFinding(errOut, rule, sev) {
		t.Errorf("import does not print the %s %s:\n%s", sev, rule, errOut)
	}
}

// checkMCP: mcp serves the subject for a warning and leaves it out for an
// error; it serves the good skill either way, and logs the finding with
// its file, severity, rule and fix.
func checkMCP(t *testing.T, root, rule string, sev skillsdir.Severity) {
	t.Helper()
	read := func(id int, name string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"skill://%s/SKILL.md"}}`+"\n", id, name)
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + read(2, "good") + read(3, "subject")
	code, out, errOut := cliIn(t, in, "mcp", "--no-cache", "--no-watch", root)
	if code != 0 {
		t.Fatalf("mcp: exit %d\n%s", code, errOut)
	}
	served := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("mcp answered %q: %v", line, err)
		}
		served[msg.ID] = msg.Result != nil
	}
	if !served[2] {
		t.Errorf("mcp does not serve the good skill:\n%s\n%s", out, errOut)
	}
	if served[3] != (sev == skillsdir.SeverityWarning) {
		t.Errorf("mcp with a %s %s: subject served = %v\n%s", sev, rule, served[3], errOut)
	}
	if !loggedFinding(errOut, rule, sev) || !strings.Contains(errOut, "level=WARN") || !strings.Contains(errOut, filepath.Join(root, "subject")) {
		t.Errorf("mcp does not log the %s %s with its file:\n%s", sev, rule, errOut)
	}
	left := strings.Contains(errOut, "left out until this is fixed")
	if left != (sev == skillsdir.SeverityError) {
		t.Errorf("mcp with a %s %s: says the skill is left out = %v\n%s", sev, rule, left, errOut)
	}
}

// checkServe: serve's endpoint for the folder answers as mcp does, and
// its log holds the finding.
func checkServe(t *testing.T, root, rule string, sev skillsdir.Severity) {
	t.Helper()
	var (
		mu  sync.Mutex
		log bytes.Buffer
	)
	a := &app{stderr: io.Discard, stdout: io.Discard}
	a.cache.noCache = true
	ff := &folderFlags{maxDepth: skillsdir.DefaultMaxDepth, maxFileBytes: skillsdir.DefaultMaxFileBytes}
	sv, err := a.openServed(context.Background(), []string{root}, servedOptions{flags: &serverFlags{noWatch: true, folders: *ff}, logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &log}, nil))})
	if err != nil {
		sv.Close()
		t.Fatalf("serve: %v", err)
	}
	if len(sv.ep.Agents) != 1 {
		sv.Close()
		t.Fatalf("serve: endpoints %v, want the folder's alone", sv.ep.Agents)
	}
	var h http.Handler
	for _, eh := range sv.ep.Agents {
		h = eh
	}
	ts := httptest.NewServer(h)
	read := func(name string) bool {
		uri := "skill://" + name + "/SKILL.md"
		body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + uri + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "resources/read")
		req.Header.Set("Mcp-Name", uri)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && bytes.Contains(b, []byte(`"result"`))
	}
	good, subject := read("good"), read("subject")
	ts.Close()
	sv.Close() // the findings are logged before it returns
	if !good {
		t.Errorf("serve does not serve the good skill")
	}
	if subject != (sev == skillsdir.SeverityWarning) {
		t.Errorf("serve with a %s %s: subject served = %v", sev, rule, subject)
	}
	mu.Lock()
	out := log.String()
	mu.Unlock()
	if !loggedFinding(out, rule, sev) || !strings.Contains(out, filepath.Join(root, "subject")) {
		t.Errorf("serve does not log the %s %s with its file:\n%s", sev, rule, out)
	}
}

// checkScanFails: a rule that fails the whole scan stops every command.
func checkScanFails(t *testing.T, root string) {
	t.Helper()
	if code, out, _ := cli(t, "validate", root); code != 1 || !strings.Contains(out, "error ["+skillsdir.RuleNameClash+"]") {
		t.Errorf("validate: exit %d\n%s", code, out)
	}
	if code, _, errOut := cli(t, "import", "-o", "-", root); code == 0 || !strings.Contains(errOut, "defined twice") {
		t.Errorf("import: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := cliIn(t, "", "mcp", "--no-cache", "--no-watch", root); code == 0 || !strings.Contains(errOut, "defined twice") {
		t.Errorf("mcp: exit %d\n%s", code, errOut)
	}
}

// loggedFinding reports whether out has a line holding a finding of rule
// with severity sev, as skillsdir.Finding.String words it.
func loggedFinding(out, rule string, sev skillsdir.Severity) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ": "+string(sev)+": ") && strings.Contains(line, "["+rule+"]") {
			return true
		}
	}
	return false
}

// sparse makes a file of size bytes without writing them.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	write(t, path, "")
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
