package agentfile

import (
	"bufio"
	"fmt"
	"io"
)

// FileReport is the verdict on one file as `agent3md validate` reports it:
// the JSON object it prints per file, and (WriteText) the lines it prints
// for people. A skill folder's report (package skillsdir) has the same
// shape, with File its SKILL.md and Skill its name.
type FileReport struct {
	File     string    `json:"file"`
	OK       bool      `json:"ok"`
	Errors   []Finding `json:"errors"`
	Warnings []Finding `json:"warnings"`
	// Error is set, and the finding lists are empty, when the file could
	// not be read at all; Skipped says it was not a regular file and was
	// passed over.
	Error   string `json:"error,omitempty"`
	Skipped bool   `json:"skipped,omitempty"`
	// Skill is set for a skill folder's report: File is then its
	// SKILL.md, and a finding about another file of the skill names that
	// file in its message.
	Skill string `json:"skill,omitempty"`
	// ErrorFiles and WarningFiles, when set, name the file of each
	// finding for the text form (a skill's findings may be about any of
	// its files); "" or a missing entry means File.
	ErrorFiles, WarningFiles []string `json:"-"`
}

// For is r as the report of file. Its finding lists are never nil, so
// they print as [] in JSON when empty.
func (r *Report) For(file string) FileReport {
	return FileReport{File: file, OK: r.OK(), Errors: nonNil(r.Errors), Warnings: nonNil(r.Warnings)}
}

// WriteText writes the report as validate prints it: a verdict line with
// the counts, then one line per finding, errors first:
//
//	agent.3md: invalid (1 errors, 0 warnings)
//	  agent.3md:7: error [dead-link] z=1: …
func (r *FileReport) WriteText(out io.Writer) error {
	w := bufio.NewWriter(out)
	verdict := "ok"
	if !r.OK {
		verdict = "invalid"
	}
	fmt.Fprintf(w, "%s: %s (%d errors, %d warnings)\n", r.File, verdict, len(r.Errors), len(r.Warnings))
	for i, f := range r.Errors {
		fmt.Fprintf(w, "  %s\n", findingLine(r.fileOf(r.ErrorFiles, i), "error", f))
	}
	for i, f := range r.Warnings {
		fmt.Fprintf(w, "  %s\n", findingLine(r.fileOf(r.WarningFiles, i), "warning", f))
	}
	return w.Flush()
}

// fileOf is the file finding i is about: its own when the report lists
// one, else the report's.
func (r *FileReport) fileOf(files []string, i int) string {
	if i < len(files) && files[i] != "" {
		return files[i]
	}
	return r.File
}

func findingLine(file, level string, f Finding) string {
	s := fmt.Sprintf("%s:%d: %s [%s]", file, f.Line, level, f.Rule)
	if f.Z != nil {
		s += fmt.Sprintf(" z=%v", *f.Z)
	}
	return s + ": " + f.Message
}
