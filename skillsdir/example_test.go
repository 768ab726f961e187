package skillsdir_test

import (
	"context"
	"fmt"

	"github.com/agent3md/agent3md/skillsdir"
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
