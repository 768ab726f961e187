package selftest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// statusMark is the symbol WriteText prints for a status.
func statusMark(status string) string {
	switch status {
	case StatusPass:
		return "✓"
	case StatusFail:
		return "✗"
	default:
		return "–"
	}
}

// WriteText writes one line per check — a ✓, ✗ or – mark, the name, the
// detail and the duration — then a summary line "N passed, N failed, N
// skipped".
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	switch {
	case r.Server != "" && r.Transport == transportHTTP:
		fmt.Fprintf(bw, "selftest: %s (Streamable HTTP)\n", r.Server)
	case r.Server != "":
		fmt.Fprintf(bw, "selftest: %s\n", r.Server)
	}
	for _, c := range r.Checks {
		fmt.Fprintf(bw, "%s %s", statusMark(c.Status), c.Name)
		if c.Detail != "" {
			fmt.Fprintf(bw, ": %s", c.Detail)
		}
		fmt.Fprintf(bw, " (%v)\n", c.Duration.Round(time.Millisecond))
	}
	fmt.Fprintf(bw, "%d passed, %d failed, %d skipped\n", r.Passed, r.Failed, r.Skipped)
	return bw.Flush()
}

// jsonCheck is a Check as WriteJSON prints it.
type jsonCheck struct {
	Name       string  `json:"name"`
	Status     string  `json:"status"`
	Detail     string  `json:"detail,omitempty"`
	DurationMs float64 `json:"durationMs"`
}

// JSONSchema names the shape WriteJSON prints. It changes only when a
// field is removed or changes meaning; fields may be added under the same
// name (docs/selftest.md describes every field).
const JSONSchema = "agent3md-selftest/1"

// jsonReport is a Report as WriteJSON prints it.
type jsonReport struct {
	Schema    string      `json:"schema"`
	Server    string      `json:"server"`
	Transport string      `json:"transport"`
	OK        bool        `json:"ok"`
	Passed    int         `json:"passed"`
	Failed    int         `json:"failed"`
	Skipped   int         `json:"skipped"`
	Checks    []jsonCheck `json:"checks"`
}

// WriteJSON writes the report as one indented JSON object:
// {"schema", "server", "transport", "ok", "passed", "failed", "skipped",
// "checks":[{"name", "status", "detail", "durationMs"}]}, with schema
// JSONSchema.
func (r *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{
		Schema:    JSONSchema,
		Server:    r.Server,
		Transport: r.transport(),
		OK:        r.OK(),
		Passed:    r.Passed,
		Failed:    r.Failed,
		Skipped:   r.Skipped,
		Checks:    make([]jsonCheck, len(r.Checks)),
	}
	for i, c := range r.Checks {
		out.Checks[i] = jsonCheck{
			Name:       c.Name,
			Status:     c.Status,
			Detail:     c.Detail,
			DurationMs: float64(c.Duration.Microseconds()) / 1000,
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// transport is r.Transport, stdio when unset.
func (r *Report) transport() string {
	if r.Transport == "" {
		return transportStdio
	}
	return r.Transport
}
