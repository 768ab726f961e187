package importer_test

import (
	"context"
	"testing"

	"github.com/agent3md/agent3md/internal/testkit"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// The round trips need the other direction: these export an agent file
// as skills folders, as agent3md export --skills-dir does, and read what
// was written.

// put writes text to name, making its folder (testkit.WriteFile).
var put = testkit.WriteFile

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

// tree is testkit.Tree: the files below a directory, for comparing states.
var tree = testkit.Tree

// agentFiles are the agent files the round trips are tried on: the
// bundled examples and every agent of agentfile's test data.
func agentFiles(t *testing.T) []string { return testkit.AgentFiles(t, "../..", 45) }
