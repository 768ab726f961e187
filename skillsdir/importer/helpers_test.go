package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// The round trips need the other direction: these export an agent file
// as skills folders, as agent3md export --skills-dir does, and read what
// was written.

// put writes text to name, making its folder.
func put(t *testing.T, name, text string) {
	t.Helper()
	err := os.MkdirAll(filepath.Dir(name), 0o755)
	if err == nil {
		err = os.WriteFile(name, []byte(text), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
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

// tree lists the files below dir (links shown as "-> target") with their
// contents, for comparing states.
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

// agentFiles are the agent files the round trips are tried on: the
// bundled examples and every agent of agentfile's test data.
func agentFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"../../examples/*.3md", "../../agentfile/testdata/*/*.3md", "../../agentfile/testdata/*/*/*.3md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 45 {
		t.Fatalf("found %d agent files; is the test running in skillsdir/importer/?", len(out))
	}
	return out
}
