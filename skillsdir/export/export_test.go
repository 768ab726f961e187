package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/testkit"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// put writes text to name, making its folder (testkit.WriteFile).
var put = testkit.WriteFile

// markerFile is the marker's name in each exported folder.
const markerFile = ".agent3md-export.json"

// marker is what a test reads of a marker.
type marker struct {
	Agent, Source, Skill string
	Files                []string
}

// readMarker decodes a skill folder's marker; nil when it has none.
func readMarker(folder string) (*marker, error) {
	b, err := os.ReadFile(filepath.Join(folder, markerFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m marker
	return &m, json.Unmarshal(b, &m)
}

// exportAgent exports the agent file into dir.
func exportAgent(t *testing.T, dir, file string, force bool) (*folderwrite.Report, error) {
	t.Helper()
	ag, err := loader.Open(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	folders, opts, err := export.Folders(context.Background(), ag)
	if err != nil {
		t.Fatal(err)
	}
	opts.Force = force
	return folderwrite.WriteFolders(dir, folders, &opts)
}

// exportText exports the agent file text (written in outside) into dir,
// which must succeed.
func exportText(t *testing.T, dir, outside, text string) {
	t.Helper()
	if _, err := exportAgent(t, dir, agentFile(t, outside, text), false); err != nil {
		t.Fatal(err)
	}
}

// reportLines says what a report holds as "created <path>" lines and a
// count line, "N created, N replaced, N unchanged, N removed".
func reportLines(r *folderwrite.Report) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, g := range []struct {
		verb  string
		paths []string
	}{{"created", r.Created}, {"replaced", r.Replaced}, {"unchanged", r.Unchanged}, {"removed", r.Removed}} {
		for _, p := range g.paths {
			out = append(out, g.verb+" "+p)
		}
	}
	return append(out, fmt.Sprintf("%d created, %d replaced, %d unchanged, %d removed", len(r.Created), len(r.Replaced), len(r.Unchanged), len(r.Removed)))
}

// tree is testkit.Tree: the files below a directory, for comparing states.
var tree = testkit.Tree

// TestExportSkillsDirSafety: export never writes through a link, never
// overwrites a folder it did not write, and removes only what an earlier
// export of the same agent wrote.
func TestExportSkillsDirSafety(t *testing.T) {
	one := "---\n3md: 1\nagent: one\npersona: careful\n---\n@plane z=0 kind=identity\nNever push to main.\n\n@plane z=1 label=search-code triggers=search\nSearch. See [[z=2]].\n\n@plane z=2 label=helper triggers=help\nHelp.\n"
	two := "---\n3md: 1\nagent: two\n---\n@plane z=0 kind=identity\nTwo.\n\n@plane z=1 label=search-code triggers=search\nOther search.\n"
	oneLess := "---\n3md: 1\nagent: one\n---\n@plane z=0 kind=identity\nNever push to main.\n\n@plane z=1 label=search-code triggers=search\nSearch, alone now.\n"
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, outside string)
		agent string // text of the agent exported last
		force bool
		err   string // what the error says; "" when the export succeeds
		done  string // a line of the report ("created x", "5 unchanged")
		check func(t *testing.T, dir, outside string)
	}{
		{name: "fresh export writes identity and marker", agent: one, done: "created search-code/references/AGENT.md",
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
		{name: "symlinked skill folder refused", agent: one, err: "is a symbolic link",
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
		{name: "symlinked references refused even with force", agent: one, force: true, err: "references is a symbolic link",
			setup: func(t *testing.T, dir, outside string) {
				put(t, filepath.Join(dir, "search-code", "SKILL.md"), "mine")
				os.Symlink(outside, filepath.Join(dir, "search-code", "references"))
			},
			check: func(t *testing.T, dir, outside string) {
				if got := tree(t, outside); len(got) != 0 {
					t.Errorf("wrote outside DIR: %v", got)
				}
			}},
		{name: "symlinked SKILL.md refused", agent: one, err: "SKILL.md is a symbolic link",
			setup: func(t *testing.T, dir, outside string) {
				exportText(t, dir, outside, one)
				os.Remove(filepath.Join(dir, "search-code", "SKILL.md"))
				put(t, filepath.Join(outside, "victim"), "keep")
				os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "search-code", "SKILL.md"))
			},
			check: func(t *testing.T, _, outside string) {
				if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "keep" {
					t.Errorf("link target rewritten: %q", b)
				}
			}},
		{name: "foreign SKILL.md refused", agent: one, err: "was not written by 'agent3md export'",
			setup: func(t *testing.T, dir, _ string) {
				put(t, filepath.Join(dir, "search-code", "SKILL.md"), "hand-written")
			},
			check: func(t *testing.T, dir, _ string) {
				if b, _ := os.ReadFile(filepath.Join(dir, "search-code", "SKILL.md")); string(b) != "hand-written" {
					t.Errorf("foreign SKILL.md overwritten: %q", b)
				}
			}},
		{name: "another agent's folder refused", agent: two, err: `holds skill "search-code" of agent "one"`,
			setup: func(t *testing.T, dir, outside string) {
				exportText(t, dir, outside, one)
			},
			check: func(t *testing.T, dir, _ string) {
				if b, _ := os.ReadFile(filepath.Join(dir, "search-code", "SKILL.md")); !bytes.Contains(b, []byte("See [")) {
					t.Errorf("agent one's SKILL.md replaced:\n%s", b)
				}
			}},
		{name: "force replaces another agent's folder", agent: two, force: true, done: "replaced search-code/SKILL.md",
			setup: func(t *testing.T, dir, outside string) {
				exportText(t, dir, outside, one)
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
		{name: "stale files and folders of the same agent removed", agent: oneLess, done: "removed search-code/references/helper.md",
			setup: func(t *testing.T, dir, outside string) {
				exportText(t, dir, outside, one)
				put(t, filepath.Join(dir, "search-code", "notes.md"), "the user's own file")
			},
			check: func(t *testing.T, dir, _ string) {
				if _, err := os.Lstat(filepath.Join(dir, "helper")); err == nil {
					t.Errorf("the gone skill's folder is still there: %v", tree(t, filepath.Join(dir, "helper")))
				}
				if b, _ := os.ReadFile(filepath.Join(dir, "search-code", "notes.md")); string(b) != "the user's own file" {
					t.Errorf("a file export did not write was removed")
				}
			}},
		{name: "second export is idempotent", agent: one, done: "0 created, 0 replaced, 5 unchanged, 0 removed",
			setup: func(t *testing.T, dir, outside string) {
				exportText(t, dir, outside, one)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir, outside)
			}
			rep, err := exportAgent(t, dir, agentFile(t, t.TempDir(), tt.agent), tt.force)
			switch {
			case tt.err == "" && err != nil, tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want one saying %q", err, tt.err)
			case tt.done != "" && !slices.Contains(reportLines(rep), tt.done):
				t.Fatalf("report %q lacks %q", reportLines(rep), tt.done)
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
	put(t, name, text)
	return name
}

// TestExportReplacesFolderWhole: a folder whose skill changed is written
// anew beside it and put in its place (a new directory), carrying over the
// files export did not write, a folder of them and one beside its own
// references included; one that did not change is left alone (the same
// directory); no temporary folder is left behind.
func TestExportReplacesFolderWhole(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	one := "---\n3md: 1\nagent: one\n---\n@plane z=0 kind=identity\nRules.\n\n@plane z=1 label=search-code triggers=search\nSearch. See [[z=2]].\n\n@plane z=2 label=helper triggers=help\nHelp.\n"
	exportText(t, dir, src, one)
	put(t, filepath.Join(dir, "search-code", "notes.md"), "mine\n")
	put(t, filepath.Join(dir, "search-code", "references", "mine.md"), "also mine\n")
	put(t, filepath.Join(dir, "search-code", "scripts", "run.sh"), "#!/bin/sh\n")
	before, err := os.Stat(filepath.Join(dir, "search-code"))
	if err != nil {
		t.Fatal(err)
	}
	helperBefore, _ := os.Stat(filepath.Join(dir, "helper"))
	rep, err := exportAgent(t, dir, agentFile(t, src, strings.Replace(one, "Search. See", "Search well. See", 1)), false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Replaced, []string{"search-code/SKILL.md"}) {
		t.Errorf("replaced %q", rep.Replaced)
	}
	after, _ := os.Stat(filepath.Join(dir, "search-code"))
	if os.SameFile(before, after) {
		t.Error("the changed folder was written in place, not replaced whole")
	}
	if helperAfter, _ := os.Stat(filepath.Join(dir, "helper")); !os.SameFile(helperBefore, helperAfter) {
		t.Error("an unchanged folder was rewritten")
	}
	got := tree(t, filepath.Join(dir, "search-code"))
	for p, want := range map[string]string{"notes.md": "mine\n", "references/mine.md": "also mine\n", "scripts/run.sh": "#!/bin/sh\n"} {
		if got[filepath.FromSlash(p)] != want {
			t.Errorf("%s is %q after the export, want %q", p, got[filepath.FromSlash(p)], want)
		}
	}
	if !strings.Contains(got["SKILL.md"], "Search well.") {
		t.Errorf("SKILL.md not replaced:\n%s", got["SKILL.md"])
	}
	if st, _ := os.Stat(filepath.Join(dir, "search-code")); st.Mode().Perm() != 0o755 {
		t.Errorf("folder mode %v, want 0755", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
