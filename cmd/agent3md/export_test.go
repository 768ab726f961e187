package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

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
