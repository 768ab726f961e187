package agentfile_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
)

// TestStarter: every name Starter accepts gives an agent that parses to
// the catalog it returns and validates with no finding, titled with the
// name's first letter upper-cased and labelled with the name as given;
// every name it cannot carry as written is refused with the reason, never
// with the self-check's "internal error".
func TestStarter(t *testing.T) {
	for _, c := range []struct {
		name  string
		title string // when accepted
		want  string // the refusal, when not
	}{
		{name: "triage", title: "Triage"},
		{name: "äpfel", title: "Äpfel"},
		{name: "My Agent", title: "My Agent"},
		{name: "release-helper_2", title: "Release-helper_2"},
		{name: "客服", title: "客服"},
		{name: strings.Repeat("ä", agentfile.MaxStarterNameChars), title: "Ä" + strings.Repeat("ä", agentfile.MaxStarterNameChars-1)},
		{name: "", want: "agent name is empty"},
		{name: " ", want: "agent name is empty"},
		{name: " ops", want: "starts or ends with white space"},
		{name: "ops\u00a0", want: "starts or ends with white space"},
		{name: strings.Repeat("a", agentfile.MaxStarterNameChars+1), want: "over the limit of 100"},
		{name: `ops\`, want: `holds the character \`},
		{name: "a\x01b", want: "control character U+0001"},
		{name: "a\nb", want: "control character U+000A"},
		{name: "\xff", want: "not valid UTF-8"},
		{name: "'q'", want: "holds the character '"},
		{name: `x"y`, want: `holds the character "`},
		{name: "a:b", want: "holds the character :"},
		// The frontmatter reads "|" as a YAML block scalar: new wrote
		// "internal error: scaffold is not valid".
		{name: "|", want: `agent name "|" cannot be written into an agent file as it is ([yaml-frontmatter]`},
	} {
		text, cat, err := agentfile.Starter(c.name)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "internal error") {
				t.Errorf("Starter(%q) = %v, want an error with %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("Starter(%q): %v", c.name, err)
			continue
		}
		again, err := agentfile.Parse(bytes.NewReader(text), nil)
		if err != nil {
			t.Fatalf("Starter(%q) does not parse: %v", c.name, err)
		}
		if r := agentfile.Validate(again); !r.OK() || len(r.Warnings) > 0 {
			t.Errorf("Starter(%q) is not clean: %+v", c.name, r)
		}
		if again.SHA256 != cat.SHA256 || len(cat.Agent().Skills) != 2 {
			t.Errorf("Starter(%q): the catalog returned is not the text's (%d skills)", c.name, len(cat.Agent().Skills))
		}
		if !bytes.Contains(text, []byte("title: "+c.title+"\n")) || !bytes.Contains(text, []byte(`label="`+c.name+`" kind=identity`)) {
			t.Errorf("Starter(%q): want title %q and the name as the identity label in:\n%s", c.name, c.title, text)
		}
		if !utf8.Valid(text) {
			t.Errorf("Starter(%q) is not UTF-8", c.name)
		}
	}
}

// FuzzStarter: a name is either refused with the name's fault or written
// as a clean agent (TestStarter's checks are Starter's own self-check).
func FuzzStarter(f *testing.F) {
	for _, s := range []string{"triage", "äpfel", `ops\`, "a:b", "ǆx", "ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		_, _, err := agentfile.Starter(name)
		if err != nil && !strings.HasPrefix(err.Error(), "agent name ") {
			t.Fatalf("Starter(%q): %v", name, err)
		}
	})
}
