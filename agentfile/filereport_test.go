package agentfile_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

// TestFileReport: a validator report for a named file prints as validate
// prints it (verdict line, then errors and warnings with file, line,
// severity, rule and z) and encodes with [] for an empty finding list.
func TestFileReport(t *testing.T) {
	z := 1.0
	r := &agentfile.Report{
		Errors:   []agentfile.Finding{{Rule: agentfile.RuleDeadLink, Message: "links to z=9, which no plane has", Z: &z, Line: 7}},
		Warnings: []agentfile.Finding{{Rule: agentfile.RuleTriggers, Message: "no triggers", Line: 3}},
	}
	fr := r.For("agent.3md")
	var b strings.Builder
	if err := fr.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "agent.3md: invalid (1 errors, 1 warnings)\n" +
		"  agent.3md:7: error [dead-link] z=1: links to z=9, which no plane has\n" +
		"  agent.3md:3: warning [triggers]: no triggers\n"
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}

	clean := (&agentfile.Report{}).For("ok.3md")
	data, err := json.Marshal(clean)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != `{"file":"ok.3md","ok":true,"errors":[],"warnings":[]}` {
		t.Errorf("JSON = %s", got)
	}
	b.Reset()
	clean.WriteText(&b)
	if b.String() != "ok.3md: ok (0 errors, 0 warnings)\n" {
		t.Errorf("WriteText = %q", b.String())
	}
}
