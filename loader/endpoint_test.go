package loader

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEndpointSlug: an agent's endpoint is its Latin title, else its
// `agent` key, else its file's name; a skills folder without AGENT.md
// is named by the folder.
func TestEndpointSlug(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, front, want string
	}{
		{"latin title wins", "a.3md", "title: Forge Tools\nagent: devtools\n", "forge-tools"},
		{"chinese title: agent key", "b.3md", "title: 小帮\nagent: kefu\n", "kefu"},
		{"chinese title, no key: file name", "shop-help.3md", "title: 客服助手\n", "shop-help"},
		{"partly latin title: agent key", "c.3md", "title: Café Bot\nagent: cafe\n", "cafe"},
		{"nothing latin anywhere: partial slug", "帮助.3md", "title: 帮助 2\n", "2"},
		{"nothing at all", "帮.3md", "title: 帮\n", "agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			body := "---\n3md: 1\n" + tt.front + "---\n@plane z=0 kind=identity\nWho.\n\n@plane z=1 label=ask triggers=\"ask\"\n# Ask\nAsk.\n"
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			ag, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ag.Close()
			if got := ag.EndpointSlug(); got != tt.want {
				t.Errorf("EndpointSlug = %q, want %q", got, tt.want)
			}
		})
	}
	root := filepath.Join(dir, "Team Skills")
	skill := filepath.Join(root, "pdf")
	os.MkdirAll(skill, 0o755)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody.\n"), 0o644)
	ag, err := OpenFolders(bg, []string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	if got := ag.EndpointSlug(); got != "team-skills" {
		t.Errorf("skills folder: EndpointSlug = %q, want team-skills (its name %q)", got, ag.Info().Name)
	}
}
