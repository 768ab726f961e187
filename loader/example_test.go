package loader_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/agent3md/agent3md/loader"
)

func ExampleAgent_Command() {
	a, err := loader.Open(filepath.Join("testdata", "conformance", "agent3md", "valid-typed-inputs.3md"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	// The optional limit has no value: its "--limit {limit}" words drop out.
	f, _ := a.Command("query", map[string]string{"question": "who's on call?"})
	fmt.Println(f.Ready, f.Command, f.Omitted)

	f, _ = a.Command("query", map[string]string{"limit": "ten"})
	fmt.Println(f.Ready, f.Missing, f.Invalid[0].Reason)
	// Output:
	// true db query 'who'\''s on call?' [limit]
	// false [question] not a finite decimal number (examples: 3, -0.5, 1e3)
}

func ExampleAgent_Resolve() {
	a, err := loader.Open(filepath.Join("testdata", "conformance", "agent3md", "valid-deps.3md"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	chain, err := a.Resolve(context.Background(), "answer")
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range chain {
		fmt.Printf("%s (z=%v): %d bytes\n", r.Name, r.Z, len(r.Body))
	}
	// Output:
	// answer (z=1): 73 bytes
	// cite (z=2): 55 bytes
}

func ExampleAgent_SkillMD() {
	a, err := loader.Open(filepath.Join("testdata", "conformance", "agent3md", "valid-deps.3md"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	r, err := a.SkillMD(context.Background(), "answer")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(r.Text))
	for _, ref := range r.References {
		fmt.Println(ref.Path)
	}
	// Output:
	// ---
	// name: "answer"
	// description: "Answer a question, then attach sources with cite."
	// metadata:
	//   label: "answer"
	//   z: "1"
	//   triggers: "answer, ask, question"
	// ---
	// # Skill: answer
	// Answer a question, then attach sources with [cite](references/cite.md).
	//
	// This skill belongs to the agent Deps: read its identity and rules in [AGENT.md](references/AGENT.md) before acting.
	// references/cite.md
	// references/AGENT.md
}

func ExampleAgent_Closest() {
	a, err := loader.Open(filepath.Join("testdata", "conformance", "agent3md", "valid-cost.3md"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	_, err = a.Body(context.Background(), "serch")
	fmt.Println(err)
	fmt.Println(a.Closest("qeury", 3))
	// Output:
	// unknown skill: serch (closest: search)
	// [query]
}
