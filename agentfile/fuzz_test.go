package agentfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds returns the seed inputs: every 3md vector's source, every
// agent3md vector, every example agent and the hostile-content table.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var seeds [][]byte
	vecs, _ := filepath.Glob("testdata/conformance/3md/*.json")
	for _, f := range vecs {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var v struct {
			Source string `json:"source"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		seeds = append(seeds, []byte(v.Source))
	}
	agents, _ := filepath.Glob("testdata/conformance/agent3md/*.3md")
	examples, _ := filepath.Glob("../examples/*.3md")
	for _, f := range append(agents, examples...) {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, c := range hostileCases() {
		seeds = append(seeds, []byte(c.src))
	}
	for _, c := range quoteCases() {
		seeds = append(seeds, []byte(c.source()))
	}
	rules, _ := filepath.Glob("testdata/rules/*.3md")
	for _, f := range rules {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	if len(seeds) < 45+17 {
		tb.Fatalf("only %d fuzz seeds; are the conformance vectors in testdata/?", len(seeds))
	}
	return seeds
}

// canonicalNames are the only Names a *ParseError may carry.
var canonicalNames = map[string]bool{
	MissingFrontmatter: true, InvalidFrontmatter: true, MissingVersion: true,
	InvalidPlaneDirective: true, MissingPlanePosition: true, DuplicatePlane: true,
	LimitExceeded: true, ReadFailed: true,
}

// smallLimits derives tight bounds from a fuzzed seed, so the fuzzer also
// explores the limit paths.
func smallLimits(seed uint32) Limits {
	b := func(shift uint) int { return int(seed >> shift & 0xff) }
	return Limits{
		MaxBytes:            int64(16 + b(0)*4),
		MaxLineBytes:        4 + b(8)%120,
		MaxFrontmatterLines: 1 + b(16)%8,
		MaxPlanes:           1 + b(24)%8,
		MaxAttributes:       1 + b(0)%6,
		MaxAttributeBytes:   1 + b(8)%24,
		MaxDescriptionBytes: 1 + b(16)%64,
		MaxLinks:            1 + b(24)%6,
	}
}

func FuzzParse(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, uint32(i)*0x9E3779B9)
	}
	f.Fuzz(func(t *testing.T, src []byte, seed uint32) {
		doc, rerr, st := refParse(src)
		cat, err := Parse(bytes.NewReader(src), nil)
		checkParseError(t, err)
		checkOffset(t, src, err)
		checkAgainstReference(t, src, cat, err, doc, rerr)
		lim := smallLimits(seed)
		small, serr := Parse(bytes.NewReader(src), &Options{Limits: lim})
		checkParseError(t, serr)
		checkOffset(t, src, serr)
		checkLimits(t, lim, st, rerr, cat, err, small, serr)
		// A scan stopped after k planes is the whole scan's first k planes
		// (links' TargetExists aside), or fails where the whole scan
		// fails within them.
		if err == nil && len(cat.Planes) > 1 {
			k := 1 + int(seed%uint32(len(cat.Planes)))
			part, perr := Parse(bytes.NewReader(src), &Options{Planes: k})
			if perr != nil {
				t.Fatalf("partial scan of %d planes failed where the whole scan did not: %v", k, perr)
			}
			if len(part.Planes) != min(k, len(cat.Planes)) || part.Partial != (k < len(cat.Planes)) {
				t.Fatalf("partial scan of %d planes: %d planes, Partial %v (whole: %d)", k, len(part.Planes), part.Partial, len(cat.Planes))
			}
			for i := range part.Planes {
				got, want := part.Planes[i], cat.Planes[i]
				got.Links, want.Links = noExists(got.Links), noExists(want.Links)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("partial scan of %d planes: plane %d differs", k, i)
				}
			}
		}
	})
}

// checkParseError holds every error to the contract: a *ParseError with a
// canonical name, a 1-based line, and an Error() that does not panic.
func checkParseError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error is not a *ParseError: %T %v", err, err)
	}
	if !canonicalNames[pe.Name] || pe.Line < 1 || pe.Msg == "" {
		t.Fatalf("malformed error: %#v", pe)
	}
	if s := pe.Error(); !strings.Contains(s, pe.Name) {
		t.Fatalf("Error() %q lacks the name %s", s, pe.Name)
	}
}

// lineStart returns the offset of the first byte of 1-based line n (0 for
// n <= 1).
func lineStart(src []byte, n int) int64 {
	off := 0
	for ; n > 1; n-- {
		k := bytes.IndexByte(src[off:], '\n')
		if k < 0 {
			return -1
		}
		off += k + 1
	}
	return int64(off)
}

// checkOffset holds a *ParseError's Offset to the start of its Line.
func checkOffset(t *testing.T, src []byte, err error) {
	t.Helper()
	var pe *ParseError
	if errors.As(err, &pe) && pe.Offset != lineStart(src, pe.Line) {
		t.Fatalf("%v: offset %d, but line %d starts at %d", err, pe.Offset, pe.Line, lineStart(src, pe.Line))
	}
}

// checkAgainstReference compares a default-limits parse with refParse.
func checkAgainstReference(t *testing.T, src []byte, cat *Catalog, err error, doc *refDoc, rerr *refError) {
	t.Helper()
	if rerr != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("reference refuses with %s on line %d; Parse accepted", rerr.name, rerr.line)
		}
		if pe.Name != rerr.name || pe.Line != rerr.line {
			t.Fatalf("Parse: %s on line %d; reference: %s on line %d (%v)", pe.Name, pe.Line, rerr.name, rerr.line, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("reference accepts; Parse: %v", err)
	}
	if cat.Version != doc.version || cat.Axis != doc.axis || !sameStringPtr(cat.HasTitle, cat.Title, doc.title) {
		t.Fatalf("frontmatter: got %q %q %v/%q, want %q %q %v", cat.Version, cat.Axis, cat.HasTitle, cat.Title, doc.version, doc.axis, doc.title)
	}
	if !equalMaps(cat.Metadata, doc.metadata) {
		t.Fatalf("metadata: got %q, want %q", cat.Metadata, doc.metadata)
	}
	if sum := sha256.Sum256(src); cat.Size != int64(len(src)) || cat.Lines != doc.lines || cat.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("size %d, %d lines, sha256 %s; want %d, %d, %x", cat.Size, cat.Lines, cat.SHA256, len(src), doc.lines, sum)
	}
	if cat.PreambleLine != doc.preambleLine {
		t.Fatalf("preamble starts on line %d, want %d", cat.PreambleLine, doc.preambleLine)
	}
	r := bytes.NewReader(src)
	if cat.HasPreamble != (doc.preamble != nil) {
		t.Fatalf("preamble presence: got %v, want %v", cat.HasPreamble, doc.preamble != nil)
	}
	if cat.HasPreamble {
		b, err := ReadSpan(r, cat.Preamble, cat.PreambleCRC)
		if err != nil || string(b) != *doc.preamble {
			t.Fatalf("preamble: got %q (%v), want %q", b, err, *doc.preamble)
		}
	}
	if len(cat.Planes) != len(doc.planes) {
		t.Fatalf("got %d planes, want %d", len(cat.Planes), len(doc.planes))
	}
	for i, pl := range cat.Planes {
		checkPlane(t, r, pl, doc.planes[i])
	}
}

func checkPlane(t *testing.T, r *bytes.Reader, pl Plane, want refPlane) {
	t.Helper()
	body, err := ReadSpan(r, pl.Body, pl.CRC)
	if err != nil {
		t.Fatalf("plane z=%s: ReadSpan(%v): %v", pl.ZText, pl.Body, err)
	}
	if string(body) != want.body {
		t.Fatalf("plane z=%s body:\n got %q\nwant %q", pl.ZText, body, want.body)
	}
	if pl.Z != want.z || pl.HasX != want.hasX || pl.HasY != want.hasY || pl.X != want.x || pl.Y != want.y {
		t.Fatalf("plane position: got z=%v x=%v/%v y=%v/%v, want %+v", pl.Z, pl.HasX, pl.X, pl.HasY, pl.Y, want)
	}
	if pl.Line != want.line || pl.BodyLine != want.bodyLine {
		t.Fatalf("plane z=%s: directive line %d, body line %d; want %d, %d", pl.ZText, pl.Line, pl.BodyLine, want.line, want.bodyLine)
	}
	if !sameStringPtr(pl.HasLabel, pl.Label, want.label) {
		t.Fatalf("plane z=%s label: got %v/%q, want %v", pl.ZText, pl.HasLabel, pl.Label, want.label)
	}
	if !equalMaps(pl.Attributes.Map(), want.attrs) {
		t.Fatalf("plane z=%s attributes: got %q, want %q", pl.ZText, pl.Attributes.Map(), want.attrs)
	}
}

// limitFlags maps each flag to whether the input, measured in full,
// breaks that bound.
func limitFlags(lim Limits, st refStats) map[string]bool {
	long := false
	for _, n := range st.lines {
		long = long || n > lim.MaxLineBytes
	}
	size := int64(0)
	if len(st.lineEnds) > 0 {
		size = st.lineEnds[len(st.lineEnds)-1]
	}
	return map[string]bool{
		"--max-bytes":             size > lim.MaxBytes,
		"--max-line-bytes":        long,
		"--max-frontmatter-lines": st.fmLines > lim.MaxFrontmatterLines,
		"--max-planes":            st.planes > lim.MaxPlanes,
		"--max-attributes":        st.maxTokens > lim.MaxAttributes,
		"--max-attribute-bytes":   st.maxValueBytes > lim.MaxAttributeBytes,
		"--max-links":             st.links > lim.MaxLinks,
	}
}

// checkLimits holds a small-limits parse to the bounds: a refusal names a
// bound the input really breaks; a format error is the one the default parse
// reports; an acceptance stays within every bound and equals the default
// parse; and a line past MaxLineBytes or a byte past MaxBytes read before any
// format error always gives ErrLimit.
func checkLimits(t *testing.T, lim Limits, st refStats, rerr *refError, cat *Catalog, err error, small *Catalog, serr error) {
	t.Helper()
	broken := limitFlags(lim, st)
	var pe *ParseError
	switch {
	case errors.Is(serr, ErrLimit):
		errors.As(serr, &pe)
		named := ""
		for flag := range broken {
			if strings.Contains(pe.Msg, flag+")") {
				named = flag
			}
		}
		if pe.Name != LimitExceeded || named == "" || !broken[named] {
			t.Fatalf("limit error %q names no bound the input breaks (%v, limits %+v)", serr, broken, lim)
		}
		return
	case serr != nil:
		errors.As(serr, &pe)
		var want *ParseError
		if !errors.As(err, &want) || want.Name != pe.Name || want.Line != pe.Line {
			t.Fatalf("small limits give %v; default limits give %v", serr, err)
		}
	default:
		for flag, b := range broken {
			if b {
				t.Fatalf("accepted an input that breaks %s (limits %+v)", flag, lim)
			}
		}
		if err != nil || len(small.Planes) != len(cat.Planes) {
			t.Fatalf("small limits accept; default limits: %v", err)
		}
		for i := range small.Planes {
			a, b := small.Planes[i], cat.Planes[i]
			if a.Body != b.Body || a.CRC != b.CRC || a.ZText != b.ZText {
				t.Fatalf("plane %d differs under small limits: %+v vs %+v", i, a, b)
			}
		}
	}
	detect := len(st.lines) + 1
	if rerr != nil {
		detect = rerr.detect
	}
	for i, n := range st.lines {
		if i+1 > detect {
			break
		}
		if n > lim.MaxLineBytes || st.lineEnds[i] > lim.MaxBytes {
			t.Fatalf("line %d breaks a bound before any format error, but Parse says %v", i+1, serr)
		}
	}
}

func sameStringPtr(has bool, v string, want *string) bool {
	if want == nil {
		return !has
	}
	return has && v == *want
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// FuzzValidate runs the agent layer and the validator on whatever parses:
// no panics, and every finding has a rule, a message and a line >= 0.
func FuzzValidate(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		cat, err := Parse(bytes.NewReader(src), nil)
		if err != nil {
			r := ParseFailure(err)
			if len(r.Errors) != 1 || r.Errors[0].Rule != RuleParse {
				t.Fatalf("ParseFailure: %+v", r)
			}
			return
		}
		a := cat.Agent()
		if len(cat.Planes) > 0 && (a.Identity < 0 || len(a.Skills) != len(cat.Planes)-1) {
			t.Fatalf("identity %d, %d skills for %d planes", a.Identity, len(a.Skills), len(cat.Planes))
		}
		r := Validate(cat)
		names := map[string]bool{}
		for _, s := range a.Skills {
			names[s.Name] = true
		}
		unique := len(names) == len(a.Skills) // else two cycles may read alike
		cycles := map[string]bool{}
		for _, fd := range append(r.Errors, r.Warnings...) {
			if !knownRules[fd.Rule] || fd.Message == "" || fd.Line < 1 {
				t.Fatalf("malformed finding %+v", fd)
			}
			if fd.Rule == RuleCycle {
				if cycles[fd.Message] && unique {
					t.Fatalf("cycle reported twice: %s", fd.Message)
				}
				cycles[fd.Message] = true
			}
		}
		if want := hasCycleKahn(cat, a); want != (len(cycles) > 0) {
			t.Fatalf("the dependency graph has a cycle: %v; cycle findings: %v", want, cycles)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
		// One rule for every command: validate reports unique-skill
		// exactly when the loader would refuse to open the agent.
		reported := false
		for _, fd := range r.Errors {
			reported = reported || fd.Rule == RuleUniqueSkill
		}
		if i, j, clash := a.FindNameClash(); clash != reported {
			t.Fatalf("name clash %v (skills %d, %d) but unique-skill reported %v", clash, i, j, reported)
		} else if clash {
			var pe *ParseError
			if err := a.NameClash(cat, "f", i, j); !errors.As(err, &pe) || pe.Name != DuplicateSkill || pe.Line <= 0 {
				t.Fatalf("NameClash: %v", err)
			}
		}
		checkNotices(t, src, cat, r)
	})
}

// checkNotices holds the text findings to the bytes: a line with a NUL
// byte, invalid UTF-8 or a lone CR is reported (while notices are not
// capped), and a name-utf8 error is reported exactly when a label or the
// agent's name is not UTF-8.
func checkNotices(t *testing.T, src []byte, cat *Catalog, r *Report) {
	t.Helper()
	seen := map[string]bool{}
	for _, n := range cat.Notices {
		seen[fmt.Sprintf("%s@%d", n.Kind, n.Line)] = true
	}
	if cat.NoticesDropped == 0 {
		lines, _ := refSplit(src)
		for i, l := range lines {
			crKind := seen[fmt.Sprintf("%s@%d", NoticeCR, i+1)] || seen[fmt.Sprintf("%s@%d", NoticeCRDirective, i+1)]
			if strings.ContainsRune(l, 0) != seen[fmt.Sprintf("%s@%d", NoticeNUL, i+1)] ||
				!utf8.ValidString(l) != seen[fmt.Sprintf("%s@%d", NoticeUTF8, i+1)] ||
				strings.Contains(l, "\r") != crKind {
				t.Fatalf("line %d %q: notices %v", i+1, l, cat.Notices)
			}
		}
	}
	bad := !utf8.ValidString(cat.Agent().Name) && cat.Agent().Named
	for _, pl := range cat.Planes {
		bad = bad || (pl.HasLabel && !utf8.ValidString(pl.Label))
	}
	reported := false
	for _, fd := range r.Errors {
		reported = reported || fd.Rule == RuleNameUTF8
	}
	if bad != reported {
		t.Fatalf("a name is not UTF-8: %v; name-utf8 reported: %v", bad, reported)
	}
}

var knownRules = map[string]bool{
	RuleParse: true, RuleFrontmatter: true, RuleIdentity: true, RuleMissingLabel: true,
	RuleUniqueSkill: true, RuleDeadLink: true, RuleEntry: true, RuleCycle: true,
	RuleTriggers: true, RuleDupInput: true, RuleInputType: true, RuleTool: true,
	RuleToolInput: true, RuleUnusedInput: true, RuleUndeclaredTool: true,
	RuleNameUTF8: true, RuleNUL: true, RuleUTF8: true, RuleStrayCR: true,
	RuleHiddenDirective: true, RuleYAML: true, RuleDirectiveTypo: true, RuleMisspeltKey: true, RuleConfusableName: true, RuleToolQuote: true,
	RuleWrappedDirective: true, RuleLinkName: true,
}

// hasCycleKahn reports whether the skills' dependency links form a cycle,
// by Kahn's algorithm: a graph is acyclic exactly when repeatedly removing
// nodes without incoming edges removes them all. It shares nothing with the
// validator's depth-first walk.
func hasCycleKahn(cat *Catalog, a *AgentInfo) bool {
	skillAt := map[float64]int{}
	for i, s := range a.Skills {
		skillAt[s.Z] = i
	}
	out := make([][]int, len(a.Skills))
	in := make([]int, len(a.Skills))
	for i, s := range a.Skills {
		for _, z := range s.Deps {
			if j, ok := skillAt[z]; ok {
				out[i] = append(out[i], j)
				in[j]++
			}
		}
	}
	var ready []int
	for i := range in {
		if in[i] == 0 {
			ready = append(ready, i)
		}
	}
	removed := 0
	for len(ready) > 0 {
		i := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		removed++
		for _, j := range out[i] {
			if in[j]--; in[j] == 0 {
				ready = append(ready, j)
			}
		}
	}
	return removed < len(a.Skills)
}
