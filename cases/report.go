package cases

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Report is what `agent3md eval --json` prints, and what --compare reads
// back: the agent and cases file, every result, and the summary.
type Report struct {
	Agent   string   `json:"agent"`
	File    string   `json:"cases_file"`
	Results []Result `json:"cases"`
	Summary Summary  `json:"summary"`
}

// WriteText prints one line per case — PASS or FAIL, where, the request —
// and, under it, what was wanted and the top matches with their tiers;
// then the rates. With failedOnly, passing cases are left out.
func (r *Report) WriteText(w io.Writer, failedOnly bool) error {
	bw := bufio.NewWriter(w)
	for i := range r.Results {
		res := &r.Results[i]
		if failedOnly && res.Pass {
			continue
		}
		verdict := "PASS"
		if !res.Pass {
			verdict = "FAIL"
		}
		fmt.Fprintf(bw, "%s  %s:%d  %s\n", verdict, r.File, res.Line, res.Request)
		fmt.Fprintf(bw, "      want %s; got %s\n", wantText(res), topText(res.Matches))
	}
	s := r.Summary
	fmt.Fprintf(bw, "\n%d cases: %s\n", s.Cases, s.Line())
	return bw.Flush()
}

// Line is the summary's rates on one line.
func (s Summary) Line() string {
	var parts []string
	if s.Positive > 0 {
		parts = append(parts, fmt.Sprintf("top-1 %.1f%% (%d/%d)", 100*s.Top1Rate, s.Top1, s.Positive),
			fmt.Sprintf("top-3 %.1f%% (%d/%d)", 100*s.Top3Rate, s.Top3, s.Positive))
	}
	if s.Negative > 0 {
		parts = append(parts, fmt.Sprintf("false match %.1f%% (%d/%d)", 100*s.FalseRate, s.False, s.Negative))
	}
	return strings.Join(parts, ", ")
}

func wantText(r *Result) string {
	if r.Expect == "" {
		return "no skill"
	}
	switch r.Rank {
	case 0:
		return r.Expect + " (not in the top " + strconv.Itoa(TopK) + ")"
	case 1:
		return r.Expect
	}
	return r.Expect + " (came " + ordinal(r.Rank) + ")"
}

func ordinal(n int) string {
	switch n {
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return strconv.Itoa(n) + "th"
}

// topText is "1. a [sure: x, y]  2. b [relaxed: z]", or "no match".
func topText(ms []Hit) string {
	if len(ms) == 0 {
		return "no match"
	}
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "%d. %s [%s", i+1, m.Name, m.Tier)
		if len(m.Hits) > 0 {
			b.WriteString(": " + strings.Join(m.Hits[:min(len(m.Hits), 4)], ", "))
			if len(m.Hits) > 4 {
				b.WriteString(", …")
			}
		}
		b.WriteByte(']')
	}
	return b.String()
}

// WriteJSON prints the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadReport reads a report WriteJSON wrote (for --compare).
func ReadReport(rd io.Reader, name string) (*Report, error) {
	var r Report
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not an `agent3md eval --json` report: %w", name, err)
	}
	if r.Results == nil {
		return nil, fmt.Errorf("%s: no \"cases\" array: pass a file written by `agent3md eval --json`", name)
	}
	return &r, nil
}

// The JUnit XML shape CI systems read: one testsuite, a testcase per case.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit prints the report as a JUnit XML testsuite: each case a
// testcase named by its line and request, a failing one with what was
// wanted and what came.
func (r *Report) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: r.Agent, Tests: len(r.Results)}
	for i := range r.Results {
		res := &r.Results[i]
		jc := junitCase{Name: fmt.Sprintf("%d: %s", res.Line, res.Request), Classname: r.File}
		if !res.Pass {
			s.Failures++
			jc.Failure = &junitFailure{Message: "want " + wantText(res), Text: "got " + topText(res.Matches)}
		}
		s.Cases = append(s.Cases, jc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
