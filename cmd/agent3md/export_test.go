package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/testkit"
)

// TestExportMatchesReference: export --bodies prints, byte for byte, what
// the reference exporter printed for every bundled and conformance agent
// (testdata/export/README.md says how the goldens were made).
func TestExportMatchesReference(t *testing.T) {
	goldens, err := filepath.Glob("testdata/export/*.json")
	if err != nil || len(goldens) < 20 {
		t.Fatalf("goldens: %v, %d found", err, len(goldens))
	}
	for _, golden := range goldens {
		base := strings.TrimSuffix(filepath.Base(golden), ".json")
		var agent string
		switch {
		case strings.HasPrefix(base, "examples--"):
			agent = "../../examples/" + strings.TrimPrefix(base, "examples--") + ".3md"
		case strings.HasPrefix(base, "agent3md--"):
			agent = "../../agentfile/testdata/conformance/agent3md/" + strings.TrimPrefix(base, "agent3md--") + ".3md"
		default:
			agent = "testdata/export/" + base + ".3md"
		}
		t.Run(base, func(t *testing.T) {
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := cli(t, "export", "--bodies", agent)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if out != string(want) {
				t.Errorf("export --bodies %s differs from the reference's:\n got: %s\nwant: %s", agent, out, want)
			}
		})
	}
}

// TestExportProjectionFields pins the two fields clients of the reference
// broke on: inputs are names, persona is never null.
func TestExportProjectionFields(t *testing.T) {
	code, out, errOut := cli(t, "export", "../../agentfile/testdata/conformance/agent3md/valid-typed-inputs.3md")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Agent  map[string]any `json:"agent"`
		Skills []struct {
			Inputs      []string         `json:"inputs"`
			InputSchema []map[string]any `json:"inputSchema"`
		} `json:"skills"`
		Bodies map[string]string `json:"bodies"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if v, ok := p.Agent["persona"]; !ok || v != "" {
		t.Errorf("persona = %#v (present %v), want \"\"", v, ok)
	}
	if p.Bodies != nil {
		t.Errorf("bodies without --bodies: %v", p.Bodies)
	}
	for _, s := range p.Skills {
		for i, in := range s.Inputs {
			if in != s.InputSchema[i]["name"] {
				t.Errorf("inputs[%d] = %q, want the name %q", i, in, s.InputSchema[i]["name"])
			}
		}
	}
}

// write writes a file and its directories (testkit.WriteFile).
var write = testkit.WriteFile

// TestExportNoPlanes: a document without planes (the reference's exporter
// throws on it) exports an agent with no skills.
func TestExportNoPlanes(t *testing.T) {
	agent := filepath.Join(t.TempDir(), "agent.3md")
	write(t, agent, "---\n3md: 1\ntitle: Empty\n---\n")
	code, out, errOut := cli(t, "export", "--bodies", agent)
	want := `{
  "schema": "agent3md/1",
  "agent": {
    "name": "Empty",
    "model": "unknown",
    "tools": [],
    "persona": ""
  },
  "skills": [],
  "bodies": {}
}
`
	if code != 0 || out != want {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
}

// TestExportRefusesNameClash: the reference exports an agent whose skills
// share a name as one entry, but no command of ours opens such an agent
// (one rule everywhere: a name answers to one skill), so export refuses it
// with both lines instead of silently dropping a skill.
func TestExportRefusesNameClash(t *testing.T) {
	code, out, errOut := cli(t, "export", "--bodies", "../../agentfile/testdata/conformance/agent3md/invalid-dup-skill.3md")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q; want exit 1 and nothing on stdout", code, out)
	}
	for _, want := range []string{"lines 10 and 14", `"dup"`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not name %s", errOut, want)
		}
	}
}

// TestExportRecoversLeftover: an export killed after carrying a folder's
// own files into its hidden next version leaves them there; the next
// export puts them back before it writes, and says so.
func TestExportRecoversLeftover(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := cli(t, "export", "--skills-dir", dir, devtools); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	marker, err := os.ReadFile(filepath.Join(dir, "run-tests", ".agent3md-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(dir, ".run-tests.agent3md-0011223344556677")
	if err := os.MkdirAll(staged, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{".agent3md-export.json": string(marker), "mine.txt": "my notes\n"} {
		if err := os.WriteFile(filepath.Join(staged, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(staged, old, old); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli(t, "export", "--skills-dir", dir, devtools)
	if code != 0 {
		t.Fatalf("export again: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "restored run-tests/mine.txt") {
		t.Errorf("the export does not say what it restored:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "run-tests", "mine.txt")); string(b) != "my notes\n" {
		t.Errorf("mine.txt not back in its folder: %q", b)
	}
	if _, err := os.Lstat(staged); err == nil {
		t.Error("the hidden folder is still there")
	}
}

// TestExportKeepsUserFiles: a reference the user made by hand in an
// exported folder is theirs. When the agent later gains a dependency of
// that name, export --skills-dir refuses (naming the file, nothing
// written) instead of replacing it; --force replaces it. Removing a
// skill the agent lost keeps a folder holding a file of the user's too.
func TestExportKeepsUserFiles(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	agent := filepath.Join(src, "agent.3md")
	v1 := "---\n3md: 1\nagent: one\n---\n@plane z=0 kind=identity\nRules.\n\n@plane z=1 label=search-code triggers=search\nSearch.\n\n@plane z=2 label=helper triggers=help\nHelp.\n"
	write(t, agent, v1)
	if code, _, errOut := cli(t, "export", "--skills-dir", dir, agent); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	mine := filepath.Join(dir, "search-code", "references", "helper.md")
	write(t, mine, "my own notes on helping\n")
	write(t, agent, strings.Replace(v1, "Search.", "Search. See [[z=2]].", 1))
	code, out, errOut := cli(t, "export", "--skills-dir", dir, agent)
	if code == 0 || !strings.Contains(errOut, "references/helper.md") || !strings.Contains(errOut, "--force") {
		t.Fatalf("export over a hand-made reference: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my own notes on helping\n" {
		t.Fatalf("the hand-made reference became %q", b)
	}
	if code, out, errOut := cli(t, "export", "--skills-dir", dir, "--force", agent); code != 0 || !strings.Contains(out, "replaced search-code/references/helper.md") {
		t.Fatalf("forced: exit %d\n%s%s", code, out, errOut)
	}
	// The agent loses helper, whose folder holds a file of the user's.
	write(t, filepath.Join(dir, "helper", "todo.md"), "mine\n")
	write(t, agent, strings.Replace(v1, "\n\n@plane z=2 label=helper triggers=help\nHelp.\n", "\n", 1))
	code, out, errOut = cli(t, "export", "--skills-dir", dir, agent)
	if code == 0 || !strings.Contains(errOut, "todo.md added") {
		t.Fatalf("pruning a folder holding todo.md: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "helper", "SKILL.md")); err != nil {
		t.Errorf("helper lost its SKILL.md: %v", err)
	}
}
