package export_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// An agent file's skills, written as Agent Skills folders: Folders
// renders them, WriteFolders writes them into a skills directory under
// the export rules (markers, no links followed, each folder replaced
// whole). A second write of the same agent changes nothing.
func ExampleFolders() {
	ag, err := loader.Open("../../examples/devtools.3md", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ag.Close()
	dir, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(dir)
	folders, opts, err := export.Folders(context.Background(), ag)
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
