package main

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeCommand is the README's first command line starting with prefix,
// without its comment, split into words.
func readmeCommand(t *testing.T, prefix string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, prefix) {
			line, _, _ = strings.Cut(line, " #")
			return strings.Fields(line)[1:]
		}
	}
	t.Fatalf("README.md has no line starting %q", prefix)
	return nil
}

// TestReadmeTeamFlow runs the README's team lines as a newcomer pastes
// them: new writes the agent, serve names its endpoint (url=), and the
// README's sync URL is that endpoint; the sync brings the team's rules.
func TestReadmeTeamFlow(t *testing.T) {
	dir := t.TempDir()
	newArgs := readmeCommand(t, "agent3md new ")
	name := newArgs[len(newArgs)-1]
	file := filepath.Join(dir, name)
	if code, _, errOut := cli(t, append(append([]string(nil), newArgs[:len(newArgs)-1]...), file)...); code != 0 {
		t.Fatalf("%v: %s", newArgs, errOut)
	}
	serveArgs := readmeCommand(t, "agent3md serve ")
	if serveArgs[len(serveArgs)-1] != name {
		t.Fatalf("README serves %v, not the file new wrote (%v)", serveArgs, newArgs)
	}
	s := startServe(t, "--no-watch", file)
	m := regexp.MustCompile(`msg="agent ready" .* url=(\S+)`).FindStringSubmatch(s.log())
	if m == nil {
		t.Fatalf("no url in serve's log:\n%s", s.log())
	}
	served, _ := url.Parse(m[1])
	syncArgs := readmeCommand(t, "agent3md sync ")
	readmeURL, err := url.Parse(syncArgs[1])
	if err != nil || readmeURL.Path != served.Path {
		t.Fatalf("the README syncs %s, serve prints %s: the endpoints differ", syncArgs[1], m[1])
	}
	if readmeURL.Host != "127.0.0.1:8765" {
		t.Errorf("the README's sync URL %s is not serve's default address", syncArgs[1])
	}
	skills := filepath.Join(dir, "skills")
	args := []string{"sync", m[1], skills} // --watch left out: one pass
	if code, out, errOut := cli(t, args...); code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", code, out, errOut)
	}
	ids, _ := filepath.Glob(filepath.Join(skills, "*", "references", "AGENT.md"))
	if len(ids) == 0 {
		t.Fatal("the synced skills hold no references/AGENT.md: the team's rules did not come")
	}
}
