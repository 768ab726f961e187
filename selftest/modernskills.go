package selftest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// checkModernResources lists resources as 2026-07-28 requests (resultType
// and cache hints on every page), reads one (a SKILL.md when listed),
// lists the resource templates when offered and reads an unserved skill
// URI, which must be -32602 in this revision.
func (r *runner) checkModernResources(w wire) outcome {
	var listed []resourceInfo
	more, err := r.paginateIn(w, "resources/list", nil, func(raw json.RawMessage) (string, error) {
		var page struct {
			Resources  []resourceInfo `json:"resources"`
			NextCursor string         `json:"nextCursor"`
		}
		if json.Unmarshal(raw, &page) != nil || page.Resources == nil {
			return "", fmt.Errorf("resources/list result has no \"resources\" array: %s", textclip.Bytes(string(raw), 80))
		}
		listed = append(listed, page.Resources...)
		return page.NextCursor, nil
	})
	if err != nil {
		return fail("%v", err)
	}
	done := []string{fmt.Sprintf("%d resources%s", len(listed), moreNote(more))}
	if len(listed) > 0 {
		uri := listed[0].URI
		if skills := skillResources(listed); len(skills) > 0 {
			uri = skills[0].res.URI
		}
		if _, _, problem, err := r.readOne(w, uri); problem != "" || err != nil {
			return fail("%s", problemOrErr(problem, err))
		}
		done = append(done, "read "+uri)
	}
	templates, out, ok := r.listTemplates(w)
	switch {
	case ok:
		done = append(done, fmt.Sprintf("%d templates", len(templates)))
	case out.status == StatusFail:
		return out
	}
	if out := r.unknownResource(w, codeInvalidParams); out.status != StatusPass {
		return out
	}
	return pass("%s, each with resultType and cache hints; an unknown resource is %d", strings.Join(done, ", "), codeInvalidParams)
}

// checkModernSkills lists the skills as 2026-07-28 requests, gets the
// first one back and asks for an unserved one.
func (r *runner) checkModernSkills(w wire) outcome {
	entries, pages, more, err := r.listSkillEntries(w)
	if err != nil {
		return fail("%v", err)
	}
	if len(entries) > 0 {
		if problem, err := r.skillsGetProblem(w, entries[0]); problem != "" || err != nil {
			return fail("%s", problemOrErr(problem, err))
		}
	}
	if out := r.checkSkillsUnknown(w); out.status != StatusPass {
		return out
	}
	return pass("%d skills %s and skills/get, each with resultType and cache hints; an unknown skill is %d", len(entries), pagesNote(pages, more), codeInvalidParams)
}
