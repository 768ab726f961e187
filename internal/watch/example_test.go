package watch_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agent3md/agent3md/internal/watch"
)

// A skills server watches its folders and scans them again after each
// settled burst of changes: a signal says "look again", the scan (here a
// look for the one SKILL.md; a server runs skillsdir.Scan) says what
// changed.
func ExampleNewTree() {
	root, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(root)
	w, err := watch.NewTree([]string{root}, &watch.Options{Debounce: 20 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	// Someone installs a skill.
	os.MkdirAll(filepath.Join(root, "deploy"), 0o755)
	os.WriteFile(filepath.Join(root, "deploy", "SKILL.md"), []byte("---\nname: deploy\ndescription: Ship it.\n---\nSteps.\n"), 0o644)

	// A signal may come between the folder and its SKILL.md: each one
	// means scan again, until the scan finds the skill.
	timeout := time.After(10 * time.Second)
	for {
		select {
		case <-w.Changes():
			b, err := os.ReadFile(filepath.Join(root, "deploy", "SKILL.md"))
			if err == nil && bytes.HasSuffix(b, []byte("Steps.\n")) {
				fmt.Println("deploy - Ship it.")
				return
			}
		case <-timeout:
			fmt.Println("no change seen")
			return
		}
	}
	// Output: deploy - Ship it.
}
