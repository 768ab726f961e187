package agentfile_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
)

const exampleAgent = `---
3md: 1.0
title: Pager
tools: kubectl
---
@plane z=0 label="pager" kind=identity
You are Pager, an on-call assistant.

@plane z=1 label="pod-logs" triggers="pod logs, why is the pod crashing" inputs="pod, lines:number?" tool="kubectl logs {pod} --tail {lines}"
# Pod logs
Shows the last lines a pod wrote. Read [[z=2]] first.

@plane z=2 label="context" triggers="which cluster"
Check the current kubectl context.
`

func ExampleParse() {
	src := []byte(exampleAgent)
	cat, err := agentfile.Parse(bytes.NewReader(src), &agentfile.Options{File: "pager.3md"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pl := range cat.Planes {
		body, err := agentfile.ReadSpan(bytes.NewReader(src), pl.Body, pl.CRC)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("z=%s %q line %d: %d-byte body, %q\n", pl.ZText, pl.Label, pl.Line, len(body), pl.Description)
	}
	fmt.Printf("%d link(s), first to z=%s\n", len(cat.AllLinks()), cat.AllLinks()[0].Target)

	_, err = agentfile.Parse(strings.NewReader("---\n3md: 1.0\n---\n@plane z=1e400\n"), &agentfile.Options{File: "bad.3md"})
	fmt.Println(err)
	// Output:
	// z=0 "pager" line 6: 36-byte body, "You are Pager, an on-call assistant."
	// z=1 "pod-logs" line 9: 64-byte body, "Shows the last lines a pod wrote. Read [[z=2]] first."
	// z=2 "context" line 13: 34-byte body, "Check the current kubectl context."
	// 1 link(s), first to z=2
	// bad.3md:4: invalidPlaneDirective: z="1e400" is not a finite decimal number (write e.g. z=2 or z=-1.5; no hex, inf, nan or separators)
}

func ExampleCatalog_Agent() {
	cat, err := agentfile.Parse(strings.NewReader(exampleAgent), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	a := cat.Agent()
	fmt.Printf("%s (model %s), identity z=%s, tools %v\n", a.Name, a.Model, cat.Planes[a.Identity].ZText, a.Tools)
	for _, s := range a.Skills {
		fmt.Printf("%s: triggers %q, inputs %+v, tool %q, deps %v\n", s.Name, s.Triggers, s.Inputs, s.Tool, s.Deps)
	}
	// Output:
	// Pager (model unknown), identity z=0, tools [kubectl]
	// pod-logs: triggers ["pod logs" "why is the pod crashing"], inputs [{Name:pod Type:string Optional:false} {Name:lines Type:number Optional:true}], tool "kubectl logs {pod} --tail {lines}", deps [2]
	// context: triggers ["which cluster"], inputs [], tool "", deps []
}

func ExampleValidate() {
	src := strings.Replace(exampleAgent, `tool="kubectl logs`, `tool="stern logs`, 1)
	src = strings.Replace(src, "Read [[z=2]] first.", "Read [[z=2]] and [[z=7]] first.", 1)
	cat, err := agentfile.Parse(strings.NewReader(src), nil)
	if err != nil {
		fmt.Println(agentfile.ParseFailure(err).Errors[0].Message)
		return
	}
	r := agentfile.Validate(cat)
	fmt.Println("ok:", r.OK())
	for _, f := range r.Errors {
		fmt.Printf("error %s (line %d): %s\n", f.Rule, f.Line, f.Message)
	}
	for _, f := range r.Warnings {
		fmt.Printf("warning %s (line %d): %s\n", f.Rule, f.Line, f.Message)
	}
	// Output:
	// ok: false
	// error dead-link (line 11): skill "pod-logs" links to [[z=7]], but no plane has z=7
	// warning undeclared-tool (line 9): skill "pod-logs" runs "stern", which the frontmatter tools: list does not declare
}
