package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateRoutingLints: validate names the competing skill, the file
// and line, for an agent file and for a skills folder; --no-lint skips
// the lints.
func TestValidateRoutingLints(t *testing.T) {
	agent := "../../lint/testdata/compete.3md"
	root := t.TempDir()
	for name, desc := range map[string]string{
		"constant-time-analysis": "Use when reviewing cryptographic code for timing side channels in comparisons and branches.",
		"constant-time-testing":  "Use when testing cryptographic code for timing side channels in comparisons and branches.",
		"pdf-tools":              "A PDF toolkit.",
	} {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody.\n"
		if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
		not  []string
	}{
		{"agent file", []string{"validate", agent}, []string{
			agent + ":22: warning [everyday-trigger] z=3: trigger \"push\" of \"git-push\" is only everyday words (push)",
			agent + ":27: warning [shared-trigger] z=4: trigger \"push the branch\" of \"deploy-app\" also fires \"git-push\"",
			"warning [competing-skills]", "Say in \"constant-time-",
		}, nil},
		{"folder", []string{"validate", root}, []string{
			"SKILL.md:3: warning [competing-skills]: skills \"constant-time-",
			filepath.Join(root, "pdf-tools", "SKILL.md") + ":3: warning [description-when]",
		}, nil},
		{"--no-lint", []string{"validate", "--no-lint", agent, root}, nil, []string{"competing-skills", "everyday-trigger", "description-when"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cli(t, c.args...)
			if code != 0 {
				t.Fatalf("exit %d (warnings only)\n%s%s", code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("output holds %q:\n%s", w, out)
				}
			}
		})
	}
}
