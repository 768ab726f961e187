package agentfile

import (
	"strings"

	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// RuleToolQuote is the validator rule for command templates whose
// placeholders the shell would not read as quoted text: inside $(…), `…`,
// ${…}, arithmetic, a here-document or a comment, or in a word that also
// expands something. A value filled there could run as code, so fill and
// run refuse such a template; the validator reports it as an error.
const RuleToolQuote = "tool-quote"

// toolQuote reports each placeholder of the skill's command that cannot be
// filled safely, with the skill's directive line.
func (v *validation) toolQuote(s *Skill, pl *Plane) {
	if !s.HasTool || strings.IndexByte(s.Tool, '{') < 0 {
		return // nothing is ever substituted, so nothing can escape
	}
	for _, p := range shelltmpl.Problems(s.Tool) {
		if p.Name == "" {
			v.errorf(RuleToolQuote, pl, "skill %q command cannot be checked for safe quoting: %s", s.Name, p.Reason)
			continue
		}
		v.errorf(RuleToolQuote, pl, "skill %q command cannot hold {%s} there: %s", s.Name, p.Name, p.Reason)
	}
}
