package folderwrite

import (
	"fmt"
	"io"
)

// Report lists what a write into a skills directory did, as slash paths
// relative to the directory: each file created, replaced, left as it was
// (its bytes already right) and removed. RecoverStaged also lists the
// entries it moved back into their folders (Restored), the hidden
// folders it had to leave (Left, as full paths) and those named like a
// leftover of a folder no write makes, which it never touches (Skipped,
// as full paths).
type Report struct {
	Created, Replaced, Unchanged, Removed []string
	Restored, Left, Skipped               []string
}

// WriteText lists the files the write created, replaced and removed, a
// line each ("created  pdf/SKILL.md"); unchanged ones are only counted,
// by Summary.
func (r *Report) WriteText(w io.Writer) error {
	for _, group := range []struct {
		verb  string
		paths []string
	}{{"restored", r.Restored}, {"created", r.Created}, {"replaced", r.Replaced}, {"removed", r.Removed}} {
		for _, p := range group.paths {
			if _, err := fmt.Fprintf(w, "%-8s %s\n", group.verb, p); err != nil {
				return err
			}
		}
	}
	for _, d := range r.Left {
		if _, err := fmt.Fprintf(w, "left     %s: %s\n", d, LeftAdvice); err != nil {
			return err
		}
	}
	for _, d := range r.Skipped {
		if _, err := fmt.Fprintf(w, "skipped  %s: %s\n", d, SkippedAdvice); err != nil {
			return err
		}
	}
	return nil
}

// SkippedAdvice is what to do with a hidden folder named like a killed
// write's leftover whose name decodes to no skill folder's name.
const SkippedAdvice = "named like a killed write's hidden folder, but for no valid skill name, so no write of agent3md made it; it is left as it is; look inside, then remove it"

// LeftAdvice is what to do with a hidden folder RecoverStaged had to
// leave.
const LeftAdvice = "a killed write's hidden folder, holding files its folder has again; keep what you need from it, then remove it"

// Summary is the line that ends an export of skills folders into dir.
func (r *Report) Summary(skills int, dir string) string {
	return fmt.Sprintf("%d skills under %s: %d files created, %d replaced, %d unchanged, %d removed",
		skills, dir, len(r.Created), len(r.Replaced), len(r.Unchanged), len(r.Removed))
}
