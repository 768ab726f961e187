package loader

import (
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

// TestWriteSkillList: a block a skill, with only the lines it has
// something for, and a long description cut to 100 characters.
func TestWriteSkillList(t *testing.T) {
	long := strings.Repeat("é", 120)
	skills := []SkillInfo{
		{Name: "search", Z: 1, Description: "find code", Triggers: []string{"search", "grep"},
			Inputs: []agentfile.Input{{Name: "pattern", Type: "string"}, {Name: "limit", Type: "number", Optional: true}},
			Tool:   "rg {pattern}", Deps: []string{"style"}},
		{Name: "style", Z: 2.5, Description: long},
		{Name: "deploy", Z: 3, Description: "Ship it after [[z=1|the search]] and [[z=2.5]], not [[z=9]].", Cost: "prod-write"},
	}
	var b strings.Builder
	if err := WriteSkillList(&b, skills); err != nil {
		t.Fatal(err)
	}
	want := "search (z=1)\n  find code\n  triggers: search, grep\n  inputs: pattern:string, limit:number?\n  command: rg {pattern}\n  depends on: style\n" +
		"style (z=2.5)\n  " + strings.Repeat("é", 99) + "…\n  triggers: \n" +
		"deploy (z=3, cost=prod-write)\n  Ship it after the search and style, not [[z=9]].\n  triggers: \n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
