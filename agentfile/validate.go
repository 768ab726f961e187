package agentfile

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Validator rule names (docs/format.md §12). Each finding carries one.
const (
	RuleParse          = "parse"
	RuleFrontmatter    = "frontmatter"
	RuleIdentity       = "identity"
	RuleMissingLabel   = "missing-label"
	RuleUniqueSkill    = "unique-skill"
	RuleDeadLink       = "dead-link"
	RuleEntry          = "entry"
	RuleCycle          = "cycle"
	RuleTriggers       = "triggers" // warning
	RuleDupInput       = "dup-input"
	RuleInputType      = "input-type"
	RuleTool           = "tool" // warning
	RuleToolInput      = "tool-input"
	RuleUnusedInput    = "unused-input"    // warning
	RuleUndeclaredTool = "undeclared-tool" // warning
	// RuleLinkName (error): a [[z=N|text]] dependency link whose text is
	// the name of another skill than z=N's: resolve follows the number,
	// so the chain loads a skill the author did not name.
	RuleLinkName = "link-name"
)

// Finding is one validator result. Z is nil when the finding concerns the
// whole file; Line is 1-based (0 when unknown).
type Finding struct {
	Rule    string   `json:"rule"`
	Message string   `json:"message"`
	Z       *float64 `json:"z"`
	Line    int      `json:"line"`
}

// Report is the validator's verdict on one catalog.
type Report struct {
	Errors   []Finding `json:"errors"`
	Warnings []Finding `json:"warnings"`
}

// OK reports whether there are no errors (warnings do not fail a file).
func (r *Report) OK() bool { return len(r.Errors) == 0 }

var placeholderRE = regexp.MustCompile(`\{([A-Za-z_]\w*)\}`)

// Placeholders returns the {name} placeholders of a command template in
// order of first appearance, each once.
func Placeholders(tool string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range placeholderRE.FindAllStringSubmatch(tool, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// ParseFailure turns a parse error into the validator's "parse" finding,
// keeping the line and canonical name of a *ParseError anywhere in err's
// chain.
func ParseFailure(err error) *Report {
	f := Finding{Rule: RuleParse, Message: err.Error()}
	var pe *ParseError
	if errors.As(err, &pe) {
		f.Line, f.Message = pe.Line, pe.Name+": "+pe.Msg
	}
	return &Report{Errors: []Finding{f}, Warnings: []Finding{}}
}

// Validate checks a catalog against every agent3md/1 rule. It refuses
// nothing the format allows: unknown keys and attributes are not findings.
func Validate(c *Catalog) *Report { return ValidateAgent(c, c.Agent()) }

// ValidateAgent is Validate for a caller that already holds c's agent3md/1
// reading a, the result of c.Agent(), unmodified: reading it again costs
// as much memory as the reading itself (about 30 MB at 100,000 skills),
// which a server validating while it builds its routing index would add
// to its peak.
func ValidateAgent(c *Catalog, a *AgentInfo) *Report {
	v := &validation{c: c, a: a, r: &Report{Errors: []Finding{}, Warnings: []Finding{}}}
	// The text findings come first: a stray carriage return or a name
	// that is not UTF-8 is often the cause of the findings after it.
	v.text()
	v.keys()
	v.agent()
	v.skills()
	v.linkNames()
	v.confusable()
	v.cycles()
	return v.r
}

type validation struct {
	c *Catalog
	a *AgentInfo
	r *Report
}

func (v *validation) errorf(rule string, pl *Plane, format string, args ...any) {
	v.r.Errors = append(v.r.Errors, v.finding(rule, pl, format, args...))
}

func (v *validation) warnf(rule string, pl *Plane, format string, args ...any) {
	v.r.Warnings = append(v.r.Warnings, v.finding(rule, pl, format, args...))
}

func (v *validation) finding(rule string, pl *Plane, format string, args ...any) Finding {
	f := Finding{Rule: rule, Message: fmt.Sprintf(format, args...)}
	if pl != nil {
		z := pl.Z
		f.Z, f.Line = &z, pl.Line
	}
	return f
}

func (v *validation) agent() {
	c, a := v.c, v.a
	if !a.Named {
		v.r.Errors = append(v.r.Errors, Finding{Rule: RuleFrontmatter, Line: 1,
			Message: "the agent has no name: add 'title: <Display Name>' or 'agent: <name>' to the frontmatter"})
	}
	if len(c.Planes) == 0 {
		v.r.Errors = append(v.r.Errors, Finding{Rule: RuleIdentity, Line: 1,
			Message: "the document has no planes: add an identity plane ('@plane z=0 label=\"…\" kind=identity') and at least one skill"})
	}
	first := -1
	for i := range c.Planes {
		pl := &c.Planes[i]
		if pl.Attributes.Value("kind") != "identity" {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		v.errorf(RuleIdentity, pl, "a second kind=identity plane (the first is z=%s on line %d); an agent has exactly one identity: make this one a skill",
			bare(c.Planes[first].ZText), c.Planes[first].Line)
	}
	if a.HasEntry {
		n, err := strconv.ParseInt(strings.TrimSpace(a.Entry), 10, 64)
		switch {
		case err != nil:
			v.r.Errors = append(v.r.Errors, Finding{Rule: RuleEntry, Line: c.MetadataLines["entry"],
				Message: fmt.Sprintf("entry %s is not an integer plane position; write e.g. 'entry: 1'", quoted(a.Entry))})
		case c.PlaneIndex(float64(n)) < 0:
			v.r.Errors = append(v.r.Errors, Finding{Rule: RuleEntry, Line: c.MetadataLines["entry"],
				Message: fmt.Sprintf("entry %d names no plane; point it at an existing z", n)})
		}
	}
}

// namedPlane is a skill's name as written and its plane.
type namedPlane struct {
	name string
	pl   *Plane
}

func (v *validation) skills() {
	seen := map[string]namedPlane{} // NameKey -> the first skill of that key
	tools := map[string]bool{}
	for _, t := range v.a.Tools {
		tools[t] = true
	}
	for i := range v.a.Skills {
		s := &v.a.Skills[i]
		pl := &v.c.Planes[s.Plane]
		// Every name counts, skill-<z> ones and a second identity's
		// included: this is the clash that Agent.NameClash refuses to
		// open; names are compared by NameKey, so "café" with a composed
		// é and with e and a combining accent clash too.
		k := NameKey(s.Name)
		if prev, dup := seen[k]; dup {
			v.errorf(RuleUniqueSkill, pl, "skill name %s is already used by the plane on line %d%s%s; skill names must be unique: give one of them another label",
				quoted(s.Name), prev.pl.Line, sameNameNote(prev.name, s.Name), fallbackNote(prev.pl, pl))
		} else {
			seen[k] = namedPlane{s.Name, pl}
		}
		if pl.Attributes.Value("kind") == "identity" {
			continue // a second identity: reported under "identity", not a skill
		}
		if !pl.HasLabel || strings.TrimSpace(pl.Label) == "" {
			v.errorf(RuleMissingLabel, pl, "skill plane z=%s has no label, so it has no name; add label=\"<skill-name>\"", bare(pl.ZText))
		}
		if len(s.Triggers) == 0 {
			v.warnf(RuleTriggers, pl, "skill %s has no triggers, so routing can never pick it; add triggers=\"phrase, phrase\"", quoted(s.Name))
		}
		v.inputs(s, pl)
		v.tool(s, pl, tools)
		v.toolQuote(s, pl, tools)
		for _, l := range pl.Links {
			if l.IntegerTarget() && !l.TargetExists {
				v.r.Errors = append(v.r.Errors, Finding{Rule: RuleDeadLink, Z: &s.Z, Line: l.Line,
					Message: fmt.Sprintf("skill %s links to [[z=%s]], but no plane has z=%s", quoted(s.Name), l.Target, l.Target)})
			}
		}
	}
}

// linkNames reports each dependency link whose text names a skill, but
// another one than the plane its number points at: [[z=8|tail-logs]]
// where z=8 is health-check. Link text that names no skill is prose and
// free.
func (v *validation) linkNames() {
	byName := make(map[string]int, len(v.a.Skills)) // NameKey -> skill index, the first
	byPlane := make(map[int]int, len(v.a.Skills))   // plane index -> skill index
	for i := range v.a.Skills {
		k := NameKey(v.a.Skills[i].Name)
		if _, dup := byName[k]; !dup {
			byName[k] = i
		}
		byPlane[v.a.Skills[i].Plane] = i
	}
	for i := range v.a.Skills {
		s := &v.a.Skills[i]
		for _, l := range v.c.Planes[s.Plane].Links {
			if !l.HasText || !l.IntegerTarget() || !l.TargetExists {
				continue
			}
			named, ok := byName[NameKey(strings.TrimSpace(l.Text))]
			ti, isSkill := byPlane[v.c.PlaneIndex(l.TargetZ)]
			if !ok || !isSkill || named == ti {
				continue
			}
			n, t := &v.a.Skills[named], &v.a.Skills[ti]
			nz := bare(v.c.Planes[n.Plane].ZText)
			fix := fmt.Sprintf("write [[z=%s|%s]] or [[z=%s|%s]]", nz, n.Name, l.Target, t.Name)
			if named == i { // a skill never depends on itself
				fix = fmt.Sprintf("write [[z=%s|%s]], or drop the link", l.Target, t.Name)
			}
			v.r.Errors = append(v.r.Errors, Finding{Rule: RuleLinkName, Z: &s.Z, Line: l.Line,
				Message: fmt.Sprintf("skill %s links [[z=%s|%s]], but z=%s is %s and %s is z=%s: resolve follows the number and loads %s; %s",
					quoted(s.Name), l.Target, l.Text, l.Target, quoted(t.Name), quoted(n.Name), nz, quoted(t.Name), fix)})
		}
	}
}

func (v *validation) inputs(s *Skill, pl *Plane) {
	seen := map[string]bool{}
	for _, in := range s.Inputs {
		if seen[in.Name] {
			v.errorf(RuleDupInput, pl, "skill %s declares input %s twice", quoted(s.Name), quoted(in.Name))
		}
		seen[in.Name] = true
		if !ValidInputType(in.Type) {
			v.errorf(RuleInputType, pl, "skill %s input %s has type %s; use one of %s", quoted(s.Name), quoted(in.Name), quoted(in.Type), strings.Join(InputTypes, ", "))
		}
	}
}

func (v *validation) tool(s *Skill, pl *Plane, tools map[string]bool) {
	if !s.HasTool {
		return
	}
	if strings.TrimSpace(s.Tool) == "" {
		v.warnf(RuleTool, pl, "skill %s has an empty tool=; remove it or write the command template", quoted(s.Name))
		return
	}
	declared := map[string]bool{}
	for _, in := range s.Inputs {
		declared[in.Name] = true
	}
	used := map[string]bool{}
	for _, ph := range Placeholders(s.Tool) {
		used[ph] = true
		if !declared[ph] {
			v.errorf(RuleToolInput, pl, "skill %s command uses {%s}, which is not a declared input; add it to inputs=", quoted(s.Name), bare(ph))
		}
	}
	for _, in := range s.Inputs {
		if !used[in.Name] {
			v.warnf(RuleUnusedInput, pl, "skill %s declares input %s but its command never uses {%s}", quoted(s.Name), quoted(in.Name), bare(in.Name))
		}
	}
	if bin := strings.Fields(s.Tool)[0]; !tools[bin] {
		v.warnf(RuleUndeclaredTool, pl, "skill %s runs %s, which the frontmatter tools: list does not declare", quoted(s.Name), quoted(bin))
	}
}

// Bounds on cycle reporting. A hostile file can hold one cycle per back
// link, each as long as the file; the report stays readable and its size
// bounded: at most maxCycleReports cycles are listed (one more finding
// counts the rest), each naming at most maxCycleNames skills.
const (
	maxCycleReports = 20
	maxCycleNames   = 10
)

// cycles reports each dependency cycle among skills once, iteratively (no
// recursion, so a 100,000-long chain is fine). A depth-first walk meets
// every cycle it reports through exactly one back link, so with each
// skill's targets deduplicated no cycle is reported twice.
func (v *validation) cycles() {
	c, a := v.c, v.a
	edges := v.dependencyEdges()
	const (
		white = iota
		grey
		black
	)
	color := make([]int8, len(a.Skills))
	pos := make([]int, len(a.Skills)) // stack index of each grey skill
	listed, unlisted := 0, 0
	var firstUnlisted *Plane
	for root := range a.Skills {
		if color[root] != white {
			continue
		}
		stack := []dfsFrame{{s: root, next: edges[root]}}
		color[root] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.next) == 0 {
				color[top.s] = black
				stack = stack[:len(stack)-1]
				continue
			}
			n := top.next[0]
			top.next = top.next[1:]
			switch {
			case color[n] == white:
				color[n] = grey
				pos[n] = len(stack)
				stack = append(stack, dfsFrame{s: n, next: edges[n]})
			case color[n] == grey && listed < maxCycleReports:
				v.reportCycle(stack[pos[n]:])
				listed++
			case color[n] == grey:
				if unlisted++; firstUnlisted == nil {
					firstUnlisted = &c.Planes[a.Skills[n].Plane]
				}
			}
		}
	}
	if unlisted > 0 {
		v.errorf(RuleCycle, firstUnlisted, "%d more dependency cycles are not listed (the first runs through z=%s); break the cycles above and validate again",
			unlisted, bare(firstUnlisted.ZText))
	}
}

// dependencyEdges returns, per skill, the skills its integer links reach,
// each once, in body order. Links to non-skills and missing planes drop out.
func (v *validation) dependencyEdges() [][]int {
	c, a := v.c, v.a
	isSkill := make(map[int]int, len(a.Skills)) // plane index -> skill index
	for i, s := range a.Skills {
		isSkill[s.Plane] = i
	}
	stamp := make([]int, len(a.Skills)) // last source (index+1) that listed a target
	edges := make([][]int, len(a.Skills))
	for si := range a.Skills {
		for _, z := range a.Skills[si].Deps {
			if pi := c.PlaneIndex(z); pi >= 0 {
				if sj, ok := isSkill[pi]; ok && stamp[sj] != si+1 {
					stamp[sj] = si + 1
					edges[si] = append(edges[si], sj)
				}
			}
		}
	}
	return edges
}

type dfsFrame struct {
	s    int   // skill index
	next []int // skills still to visit from s
}

// reportCycle reports the cycle formed by the walk's frames from the skill
// a back link reached (cyc[0]) to the skill holding that link (the last).
func (v *validation) reportCycle(cyc []dfsFrame) {
	firstSkill := cyc[0].s
	for _, f := range cyc {
		firstSkill = min(firstSkill, f.s)
	}
	name := func(f dfsFrame) string { return bare(v.a.Skills[f.s].Name) }
	names := make([]string, 0, maxCycleNames+2)
	if len(cyc) <= maxCycleNames {
		for _, f := range cyc {
			names = append(names, name(f))
		}
	} else {
		for _, f := range cyc[:maxCycleNames-2] {
			names = append(names, name(f))
		}
		names = append(names, fmt.Sprintf("… %d more …", len(cyc)-maxCycleNames+1), name(cyc[len(cyc)-1]))
	}
	names = append(names, name(cyc[0]))
	first := &v.c.Planes[v.a.Skills[firstSkill].Plane]
	v.errorf(RuleCycle, first, "dependency cycle %s; remove one of these [[z=…]] links", strings.Join(names, " -> "))
}
