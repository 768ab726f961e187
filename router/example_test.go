package router_test

import (
	"context"
	"fmt"

	"github.com/agent3md/agent3md/router"
)

func ExampleRouter_Route() {
	skills := []router.Skill{
		{Name: "search-code", Z: 1, Triggers: []string{"find where", "grep"},
			Description: "Find where a symbol is defined and who calls it."},
		{Name: "write-commit", Z: 2, Triggers: []string{"commit message", "commits"},
			Description: "Write a commit message for the staged change."},
	}
	r, err := router.New(context.Background(), skills, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	for _, q := range []struct {
		text string
		mode router.Mode
	}{
		{"finding where Parse is called", router.Spec},
		{"finding where Parse is called", router.Ranked},
		{"commit my work", router.Ranked},
		{"which code defines this symbol", router.Ranked},
	} {
		ms, _ := r.Route(context.Background(), q.text, &router.Query{Mode: q.mode})
		fmt.Printf("%s %q:", q.mode, q.text)
		for _, m := range ms {
			fmt.Printf(" %s (%s, score %d, hits %v)", m.Name, m.Tier, m.Score, m.Hits)
		}
		fmt.Println()
	}
	// Output:
	// spec "finding where Parse is called":
	// ranked "finding where Parse is called": search-code (phrase, score 1, hits [find where])
	// ranked "commit my work": write-commit (phrase, score 1, hits [commits])
	// ranked "which code defines this symbol": search-code (relaxed, score 0, hits [code defines symbol])
}
