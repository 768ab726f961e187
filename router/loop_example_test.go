package router_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// The route → fill → run loop as a library, as the README shows it: route
// a request, read the winner's instructions, fill its command, and apply
// the same guard as `agent3md run --exec` before running anything.
func ExampleForAgent() {
	ctx := context.Background()
	ag, err := loader.Open("../examples/devtools.3md", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ag.Close()
	r, err := router.ForAgent(ctx, ag, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()

	ms, err := r.Route(ctx, "run the tests in ./loader", &router.Query{Limit: 1})
	if err != nil || len(ms) == 0 {
		log.Fatal("no skill fits")
	}
	m := ms[0]
	body, _ := ag.Body(ctx, m.Name)
	fmt.Println(m.Name, m.Tier, len(body) > 0)

	for _, values := range []map[string]string{
		{"packages": "./loader"},
		{"packages": "./loader", "pattern": "TestOpen"},
		{"packages": "-exec=/tmp/evil.sh", "pattern": "TestOpen"}, // would be an option: refused
	} {
		fill, err := ag.Command(m.Name, values)
		switch {
		case err != nil || !fill.Ready:
			var invalid []string
			for _, p := range fill.Invalid {
				invalid = append(invalid, p.Name)
			}
			fmt.Println("not ready: missing", fill.Missing, "invalid", invalid)
		case m.Tier == router.TierRelaxed || fill.Cost != "":
			fmt.Println("ask a person first:", fill.Command)
		default:
			argv, plain := fill.Argv()
			fmt.Printf("run %q (no shell: %v)\n", argv, plain)
		}
	}
	// Output:
	// run-tests phrase true
	// not ready: missing [pattern] invalid []
	// run ["go" "test" "-count=1" "--run=TestOpen" "./loader"] (no shell: true)
	// not ready: missing [] invalid [packages]
}
