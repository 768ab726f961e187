package skillsdir_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

func ExampleScan() {
	ctx := context.Background()
	c, err := skillsdir.Scan(ctx, []string{"testdata/tree"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range c.Skills() {
		fmt.Println(s.Name, s.Deps, len(s.Files))
	}
	for _, f := range c.Findings() {
		if f.Breaks() {
			fmt.Println(f.Skill, f.Line, f.Rule)
		}
	}
	ct, err := c.ReadFile(ctx, "deploy", "scripts/run.sh")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ct.MIME, ct.Text, ct.File.Size)
	// Output:
	// build [] 1
	// deploy [build lint] 3
	// lint [rules] 2
	// rules [] 1
	// search-code [] 1
	// warn-keys [] 1
	// alias 3 yaml-alias
	// broken-yaml 2 frontmatter
	// mismatch 2 name-mismatch
	// no-frontmatter 1 frontmatter
	// text/x-shellscript true 64
}

// An agent file's skills, written as Agent Skills folders: ExportFolders
// renders them, WriteFolders writes them into a skills directory under
// the export rules (markers, no links followed, each folder replaced
// whole). A second write of the same agent changes nothing.
func ExampleWriteFolders() {
	ag, err := loader.Open("../examples/devtools.3md", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ag.Close()
	dir, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(dir)
	folders, opts, err := skillsdir.ExportFolders(context.Background(), ag)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(folders[0].Name, folders[0].Files[0].Path, opts.Agent)
	for range 2 {
		rep, err := folderwrite.WriteFolders(dir, folders, &opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(len(rep.Created), "created,", len(rep.Unchanged), "unchanged")
	}
	// Output:
	// search-code SKILL.md Forge
	// 35 created, 0 unchanged
	// 0 created, 35 unchanged
}

// Skills folders made into one agent file, which parses and validates.
func ExampleImport() {
	r, err := skillsdir.Import(context.Background(), []string{"../loader/testdata/folders"}, &skillsdir.ImportOptions{Title: "Builder"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Agent, r.Skills, "skills,", r.Links, "links")
	fmt.Println(strings.SplitN(string(r.Data), "\n", 3)[1])
	// Output:
	// Builder 4 skills, 3 links
	// 3md: 1.0
}

// What validate DIR reports: each skill folder's findings, broken ones
// included.
func ExampleCheck() {
	reps, err := skillsdir.Check(context.Background(), "testdata/tree")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range reps {
		if r.Skill == "mismatch" {
			fmt.Println(r.SkillMD, r.Findings[0].Rule)
		}
	}
	// Output:
	// testdata/tree/mismatch/SKILL.md name-mismatch
}
