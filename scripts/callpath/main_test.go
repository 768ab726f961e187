package main

import (
	"slices"
	"testing"
)

// TestChanged: a file counts when one of its blocks ran between the two
// readings (its count changed, or it is new), never the measuring
// program's own files.
func TestChanged(t *testing.T) {
	before := map[string]string{
		module + "mcp/wire.go:10.2,12.3":            "4",
		module + "mcp/wire.go:20.2,22.3":            "1",
		module + "mcp/http.go:5.1,6.2":              "0",
		module + "router/rank.go:1.1,2.2":           "9",
		module + "scripts/callpath/main.go:1.1,2.2": "1",
	}
	after := map[string]string{
		module + "mcp/wire.go:10.2,12.3":            "4",
		module + "mcp/wire.go:20.2,22.3":            "2",
		module + "mcp/http.go:5.1,6.2":              "0",
		module + "router/rank.go:1.1,2.2":           "10",
		module + "loader/agent.go:3.1,4.2":          "1",
		module + "scripts/callpath/main.go:1.1,2.2": "2",
	}
	want := []string{"loader/agent.go", "mcp/wire.go", "router/rank.go"}
	if got := changed(before, after); !slices.Equal(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
	if got := report(want); got != "  loader              1  agent.go\n  mcp                 1  wire.go\n  router              1  rank.go\n" {
		t.Errorf("report = %q", got)
	}
}
