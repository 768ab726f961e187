package selftest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// needSkills is needTools plus the skill catalog from list_skills.
func (r *runner) needSkills(tool string) (*conn, outcome, bool) {
	c, out, ok := r.needTools(tool)
	if !ok {
		return nil, out, false
	}
	if r.skills == nil {
		return nil, skip("needs the skill catalog: %s", r.skillsErr), false
	}
	if len(r.skills) == 0 {
		return nil, skip("the agent has no skills"), false
	}
	return c, outcome{}, true
}

// sampleIndices picks k of n positions, evenly spread from the first
// one, so a run on the same catalog always checks the same skills and a
// huge catalog is covered end to end, not just its head.
func sampleIndices(n, k int) []int {
	if k >= n {
		k = n
	}
	idx := make([]int, k)
	for i := range k {
		idx[i] = int(int64(i) * int64(n) / int64(k))
	}
	return idx
}

// sampled returns the skills the per-skill checks visit.
func (r *runner) sampled() []skillInfo {
	idx := sampleIndices(len(r.skills), r.o.Sample)
	out := make([]skillInfo, len(idx))
	for i, j := range idx {
		out[i] = r.skills[j]
	}
	return out
}

// eachSkill runs fn on each sampled skill. fn returns a problem ("" when
// fine, "skip" when the skill does not qualify) or an error that ends the
// loop (a dead connection).
func (r *runner) eachSkill(verb string, fn func(s skillInfo) (string, error)) outcome {
	sample := r.sampled()
	capNote := ""
	if len(sample) < len(r.skills) {
		capNote = fmt.Sprintf(" (an evenly spread sample of %d of %d skills)", len(sample), len(r.skills))
	}
	var problems []string
	checked, bad := 0, 0
	for _, s := range sample {
		problem, err := fn(s)
		if err != nil {
			return fail("%s %q: %v (after %d skills)", verb, s.Name, err, checked)
		}
		if problem == "skip" {
			continue
		}
		checked++
		if problem != "" {
			bad++
			if len(problems) < maxProblems {
				problems = append(problems, problem)
			}
		}
	}
	if bad > 0 {
		more := ""
		if bad > len(problems) {
			more = fmt.Sprintf("; and %d more", bad-len(problems))
		}
		return fail("%d of %d skills%s: %s%s", bad, checked, capNote, strings.Join(problems, "; "), more)
	}
	if checked == 0 {
		return skip("no skill qualifies for this check%s", capNote)
	}
	return pass("%d skills%s", checked, capNote)
}

// routeLine matches one route_skill match line: "name  (score N; ...)".
var routeLine = regexp.MustCompile(`^(.+?)  \((.*)\)$`)

// routeMatch is one line of route_skill text.
type routeMatch struct {
	name  string
	score float64
}

// routedNames reads the matches out of route_skill text.
func routedNames(text string) ([]routeMatch, error) {
	var out []routeMatch
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || line == "no skill matched" {
			continue
		}
		m := routeLine.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(m[2], "score ") {
			return nil, fmt.Errorf("line %q is not `name  (score N; matched: ...)`", textclip.Bytes(line, 80))
		}
		num, _, _ := strings.Cut(strings.TrimPrefix(m[2], "score "), ";")
		score, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil {
			return nil, fmt.Errorf("line %q has no numeric score", textclip.Bytes(line, 80))
		}
		out = append(out, routeMatch{m[1], score})
	}
	return out, nil
}

// routeText is the request the route check sends for s: all its trigger
// phrases, so s hits every one of them and scores as high as any skill
// can for that text.
func routeText(s skillInfo) string { return strings.Join(s.Triggers, ", ") }

// checkRoute routes each sampled skill's triggers and expects the skill
// back. On huge agents many skills share trigger sets, and a server may
// cap its match list: a skill missing from a list whose every entry
// scores at least as high as the skill would is crowded out, not lost.
func (r *runner) checkRoute() outcome {
	c, out, ok := r.needSkills(toolRoute)
	if !ok {
		return out
	}
	return r.eachSkill(toolRoute, func(s skillInfo) (string, error) {
		if len(s.Triggers) == 0 {
			return "skip", nil
		}
		text := routeText(s)
		res, rerr, err := r.callTool(c, toolRoute, map[string]any{"text": text})
		if p, err := toolProblem(s.Name, res, rerr, err); p != "" || err != nil {
			return p, err
		}
		matches, perr := routedNames(res.Text())
		if perr != nil {
			return fmt.Sprintf("%s: %v", s.Name, perr), nil
		}
		if slices.ContainsFunc(matches, func(m routeMatch) bool { return m.name == s.Name }) {
			return "", nil
		}
		own := float64(len(s.Triggers))
		if len(matches) > 0 && !slices.ContainsFunc(matches, func(m routeMatch) bool { return m.score < own }) {
			return "", nil // crowded out by skills scoring at least as high
		}
		names := make([]string, len(matches))
		for i, m := range matches {
			names[i] = m.name
		}
		return fmt.Sprintf("%q routed to %s, not %s", textclip.Bytes(text, 80), orNone(names), s.Name), nil
	})
}

// toolProblem turns a failed tool call into a problem or an error.
func toolProblem(skill string, res *toolResult, rerr *rpcError, err error) (string, error) {
	switch {
	case err != nil:
		return "", err
	case rerr != nil:
		return fmt.Sprintf("%s: %v", skill, rerr), nil
	case res.IsError:
		return fmt.Sprintf("%s: tool error %q", skill, textclip.Bytes(res.Text(), 100)), nil
	}
	return "", nil
}

// checkGet fetches each sampled skill's body.
func (r *runner) checkGet() outcome {
	c, out, ok := r.needSkills(toolGet)
	if !ok {
		return out
	}
	return r.eachSkill(toolGet, func(s skillInfo) (string, error) {
		res, rerr, err := r.callTool(c, toolGet, map[string]any{"name": s.Name})
		if p, err := toolProblem(s.Name, res, rerr, err); p != "" || err != nil {
			return p, err
		}
		text := res.Text()
		if strings.TrimSpace(text) == "" {
			return fmt.Sprintf("%s: empty body", s.Name), nil
		}
		return expectProblem(s.Name, text, r.o.Expect), nil
	})
}

// checkResolve resolves each sampled skill.
func (r *runner) checkResolve() outcome {
	c, out, ok := r.needSkills(toolResolve)
	if !ok {
		return out
	}
	return r.eachSkill(toolResolve, func(s skillInfo) (string, error) {
		res, rerr, err := r.callTool(c, toolResolve, map[string]any{"name": s.Name})
		if p, err := toolProblem(s.Name, res, rerr, err); p != "" || err != nil {
			return p, err
		}
		text := res.Text()
		head := "### " + s.Name
		if text != head && !strings.HasPrefix(text, head+"\n") {
			return fmt.Sprintf("%s: text starts %q, want %q", s.Name, textclip.Bytes(text, 40), head+"\\n"), nil
		}
		return expectProblem(s.Name, text, r.o.ExpectResolve), nil
	})
}

// expectProblem compares got with the expectation for name, if any.
func expectProblem(name, got string, expect func(string) (string, bool)) string {
	if expect == nil {
		return ""
	}
	want, ok := expect(name)
	if !ok || got == want {
		return ""
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("%s: text differs from the expected one at byte %d (got %d bytes, want %d; got …%q…, want …%q…)",
		name, i, len(got), len(want), textclip.Bytes(got[i:], 30), textclip.Bytes(want[i:], 30))
}
