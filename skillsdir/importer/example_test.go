package importer_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/skillsdir/importer"
)

// Skills folders made into one agent file, which parses and validates.
func ExampleImport() {
	r, err := importer.Import(context.Background(), []string{"../../loader/testdata/folders"}, &importer.Options{Title: "Builder"})
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
