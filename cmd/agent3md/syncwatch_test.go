package main

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/logfmt"
	"github.com/agent3md/agent3md/skillsync"
)

// TestWatchLogOncePerEvent: a failed pass reported twice (by the pass,
// then as the connection drops) is one line; every line has its time;
// the first pass says it is watching, and the pass after a failure says
// it synced again.
func TestWatchLogOncePerEvent(t *testing.T) {
	var b bytes.Buffer
	src := &skillsync.Source{URL: "http://127.0.0.1:1/mcp/team"}
	printed := 0
	on := watchLog(logfmt.New(&b, nil, logfmt.Text), src, "skills", &syncFlags{}, func(*skillsync.Summary) { printed++ })
	lost := errors.New("the server closed the connection")
	on(&skillsync.Summary{}, nil) // first pass
	on(nil, lost)                 // from the pass
	on(nil, lost)                 // again, as Watch dials anew
	other := errors.New("dial: connection refused")
	on(nil, other)
	on(&skillsync.Summary{}, nil)
	on(&skillsync.Summary{}, nil) // nothing changed: nothing said
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{"watching for changes", "sync failed", "sync failed", "synced again"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	stamp := regexp.MustCompile(`^time=\d{4}-\d\d-\d\dT`)
	for i, l := range lines {
		if !strings.Contains(l, want[i]) || !stamp.MatchString(l) {
			t.Errorf("line %d %q, want a time and %q", i, l, want[i])
		}
	}
	if printed != 2 {
		t.Errorf("%d summaries printed, want 2 (the first pass, the one after the failure)", printed)
	}
}
