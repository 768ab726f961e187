package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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

// tree lists the files below dir (links shown as "name -> target") with
// their contents' first line, for comparing states.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case !d.IsDir():
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
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

// TestExportSkillsDirSafety: export never writes through a link, never
// overwrites a folder it did not write, and removes only what an earlier
// export of the same agent wrote.
func TestExportSkillsDirSafety(t *testing.T) {
	one := "---\n3md: 1\nagent: one\npersona: careful\n---\n@plane z=0 kind=identity\nNever push to main.\n\n@plane z=1 label=search-code triggers=search\nSearch. See [[z=2]].\n\n@plane z=2 label=helper triggers=help\nHelp.\n"
	two := "---\n3md: 1\nagent: two\n---\n@plane z=0 kind=identity\nTwo.\n\n@plane z=1 label=search-code triggers=search\nOther search.\n"
	oneLess := "---\n3md: 1\nagent: one\n---\n@plane z=0 kind=identity\nNever push to main.\n\n@plane z=1 label=search-code triggers=search\nSearch, alone now.\n"
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir, outside string)
		agent  string // text of the agent exported last
		args   []string
		code   int
		stdout string
		stderr string
		check  func(t *testing.T, dir, outside string)
	}{
		{name: "fresh export writes identity and marker", agent: one, code: 0, stdout: "created  search-code/references/AGENT.md",
			check: func(t *testing.T, dir, _ string) {
				md, _ := os.ReadFile(filepath.Join(dir, "search-code", "SKILL.md"))
				if !bytes.Contains(md, []byte("[AGENT.md](references/AGENT.md)")) {
					t.Errorf("SKILL.md does not point at the identity:\n%s", md)
				}
				id, _ := os.ReadFile(filepath.Join(dir, "helper", "references", "AGENT.md"))
				if !bytes.Contains(id, []byte("Never push to main.")) || !bytes.Contains(id, []byte("persona: careful")) {
					t.Errorf("AGENT.md lacks the identity:\n%s", id)
				}
				m, err := readMarker(filepath.Join(dir, "search-code"))
				if err != nil || m == nil || m.Agent != "one" || !slices.Equal(m.Files, []string{"SKILL.md", "references/AGENT.md", "references/helper.md"}) {
					t.Errorf("marker = %+v, %v", m, err)
				}
			}},
		{name: "symlinked skill folder refused", agent: one, code: 2, stderr: "is a symbolic link",
			setup: func(t *testing.T, dir, outside string) {
				os.Symlink(outside, filepath.Join(dir, "search-code"))
			},
			check: func(t *testing.T, dir, outside string) {
				if got := tree(t, outside); len(got) != 0 {
					t.Errorf("wrote outside DIR: %v", got)
				}
				if _, err := os.Lstat(filepath.Join(dir, "helper")); err == nil {
					t.Errorf("a refused export still wrote another folder")
				}
			}},
		{name: "symlinked references refused even with force", agent: one, args: []string{"--force"}, code: 2, stderr: "references is a symbolic link",
			setup: func(t *testing.T, dir, outside string) {
				write(t, filepath.Join(dir, "search-code", "SKILL.md"), "mine")
				os.Symlink(outside, filepath.Join(dir, "search-code", "references"))
			},
			check: func(t *testing.T, dir, outside string) {
				if got := tree(t, outside); len(got) != 0 {
					t.Errorf("wrote outside DIR: %v", got)
				}
			}},
		{name: "symlinked SKILL.md refused", agent: one, code: 2, stderr: "SKILL.md is a symbolic link",
			setup: func(t *testing.T, dir, outside string) {
				cli(t, "export", "--skills-dir", dir, agentFile(t, outside, one))
				os.Remove(filepath.Join(dir, "search-code", "SKILL.md"))
				write(t, filepath.Join(outside, "victim"), "keep")
				os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "search-code", "SKILL.md"))
			},
			check: func(t *testing.T, _, outside string) {
				if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "keep" {
					t.Errorf("link target rewritten: %q", b)
				}
			}},
		{name: "foreign SKILL.md refused", agent: one, code: 2, stderr: "was not written by 'agent3md export'",
			setup: func(t *testing.T, dir, _ string) {
				write(t, filepath.Join(dir, "search-code", "SKILL.md"), "hand-written")
			},
			check: func(t *testing.T, dir, _ string) {
				if b, _ := os.ReadFile(filepath.Join(dir, "search-code", "SKILL.md")); string(b) != "hand-written" {
					t.Errorf("foreign SKILL.md overwritten: %q", b)
				}
			}},
		{name: "another agent's folder refused", agent: two, code: 2, stderr: `holds skill "search-code" of agent "one"`,
			setup: func(t *testing.T, dir, outside string) {
				cli(t, "export", "--skills-dir", dir, agentFile(t, outside, one))
			},
			check: func(t *testing.T, dir, _ string) {
				if b, _ := os.ReadFile(filepath.Join(dir, "search-code", "SKILL.md")); !bytes.Contains(b, []byte("See [")) {
					t.Errorf("agent one's SKILL.md replaced:\n%s", b)
				}
			}},
		{name: "force replaces another agent's folder", agent: two, args: []string{"--force"}, code: 0, stdout: "replaced search-code/SKILL.md",
			setup: func(t *testing.T, dir, outside string) {
				cli(t, "export", "--skills-dir", dir, agentFile(t, outside, one))
			},
			check: func(t *testing.T, dir, _ string) {
				m, _ := readMarker(filepath.Join(dir, "search-code"))
				if m == nil || m.Agent != "two" {
					t.Errorf("marker after --force: %+v", m)
				}
				// Agent one's other skill is not agent two's to remove.
				if _, err := os.Stat(filepath.Join(dir, "helper", "SKILL.md")); err != nil {
					t.Errorf("agent one's helper folder touched: %v", err)
				}
			}},
		{name: "stale files and folders of the same agent removed", agent: oneLess, code: 0, stdout: "removed  search-code/references/helper.md",
			setup: func(t *testing.T, dir, outside string) {
				cli(t, "export", "--skills-dir", dir, agentFile(t, outside, one))
				write(t, filepath.Join(dir, "search-code", "notes.md"), "the user's own file")
			},
			check: func(t *testing.T, dir, _ string) {
				if _, err := os.Lstat(filepath.Join(dir, "helper")); err == nil {
					t.Errorf("the gone skill's folder is still there: %v", tree(t, filepath.Join(dir, "helper")))
				}
				if b, _ := os.ReadFile(filepath.Join(dir, "search-code", "notes.md")); string(b) != "the user's own file" {
					t.Errorf("a file export did not write was removed")
				}
			}},
		{name: "second export is idempotent", agent: one, code: 0, stdout: "0 files created, 0 replaced, 5 unchanged, 0 removed",
			setup: func(t *testing.T, dir, outside string) {
				cli(t, "export", "--skills-dir", dir, agentFile(t, outside, one))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir, outside)
			}
			args := append([]string{"export", "--skills-dir", dir}, tt.args...)
			code, out, errOut := cli(t, append(args, agentFile(t, t.TempDir(), tt.agent))...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout %q, stderr %q", code, tt.code, out, errOut, tt.stdout, tt.stderr)
			}
			if tt.check != nil {
				tt.check(t, dir, outside)
			}
		})
	}
}

// agentFile writes text as an agent file in dir and returns its path.
func agentFile(t *testing.T, dir, text string) string {
	t.Helper()
	name := filepath.Join(dir, "agent.3md")
	write(t, name, text)
	return name
}

// TestExportNoPlanes: a document without planes (the reference's exporter
// throws on it) exports an agent with no skills.
func TestExportNoPlanes(t *testing.T) {
	agent := agentFile(t, t.TempDir(), "---\n3md: 1\ntitle: Empty\n---\n")
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

func TestArrayIndex(t *testing.T) {
	for name, want := range map[string]bool{
		"0": true, "12": true, "4294967294": true,
		"": false, "01": false, "4294967295": false, "-1": false, "1.0": false, "1e3": false, " 1": false, "99999999999": false,
	} {
		if _, got := arrayIndex(name); got != want {
			t.Errorf("arrayIndex(%q) = %v, want %v", name, got, want)
		}
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
