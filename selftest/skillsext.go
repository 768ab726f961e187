package selftest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/digest"
	"github.com/agent3md/agent3md/internal/textclip"
)

// skillsExtension is the skills extension's id under
// capabilities.extensions (docs/selftest.md §6).
const skillsExtension = "io.modelcontextprotocol/skills"

// unknownSkillURI is the SKILL.md URI skills/get must refuse.
const unknownSkillURI = "skill://mcp-selftest-nonexistent-skill-9f3a2b/SKILL.md"

// skillEntry is one Skill of skills/list, validated by parseSkillEntry.
type skillEntry struct {
	URI         string
	Frontmatter map[string]any
	Resources   []skillFileRef // nil when dynamic
	Dynamic     bool
	raw         json.RawMessage
}

// root is the skill's root directory URI: its SKILL.md URI without the
// file.
func (e skillEntry) root() string { return strings.TrimSuffix(e.URI, "/"+skillFile) }

// skillFileRef is one entry of a Skill's resources.
type skillFileRef struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   *int64 `json:"size"`
}

// skillsSettings reads the skills extension's settings from declared
// capabilities: whether it is declared, whether it offers
// resources/directory/read, and what is wrong with the declaration.
func skillsSettings(caps map[string]json.RawMessage) (declared, directoryRead bool, problem string) {
	var ext map[string]json.RawMessage
	if json.Unmarshal(caps["extensions"], &ext) != nil || ext[skillsExtension] == nil {
		return false, false, ""
	}
	var settings struct {
		DirectoryRead bool `json:"directoryRead"`
	}
	if !isJSONObject(ext[skillsExtension]) || json.Unmarshal(ext[skillsExtension], &settings) != nil {
		return true, false, fmt.Sprintf("extensions[%q] must be a settings object ({} or {\"directoryRead\":true}), got %s", skillsExtension, textclip.Bytes(string(ext[skillsExtension]), 60))
	}
	return true, settings.DirectoryRead, ""
}

// parseSkillEntry reads and validates one Skill: a SKILL.md uri, a
// frontmatter object whose name is the skill path's last segment, and
// resources that are "dynamic" or a complete list of the skill's files,
// each with a sha256 digest and a size, within the per-skill limits.
func parseSkillEntry(raw json.RawMessage) (skillEntry, error) {
	var e struct {
		URI         string          `json:"uri"`
		Frontmatter map[string]any  `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return skillEntry{}, fmt.Errorf("entry is not a Skill object: %v", err)
	}
	if !strings.HasSuffix(e.URI, "/"+skillFile) || strings.HasSuffix(e.URI, "//"+skillFile) {
		return skillEntry{}, fmt.Errorf("entry uri %q is not a <skill root>/%s URI", textclip.Bytes(e.URI, 80), skillFile)
	}
	out := skillEntry{URI: e.URI, Frontmatter: e.Frontmatter, raw: raw}
	want := lastSegment(out.root())
	if e.Frontmatter == nil {
		return out, fmt.Errorf("%s: frontmatter must be an object", e.URI)
	}
	if name, err := frontmatterName(e.Frontmatter); err != nil {
		return out, fmt.Errorf("%s: %v", e.URI, err)
	} else if name != want {
		return out, fmt.Errorf("%s: frontmatter name %q differs from the skill path's last segment %q", e.URI, name, want)
	}
	var dynamic string
	if json.Unmarshal(e.Resources, &dynamic) == nil {
		if dynamic != "dynamic" {
			return out, fmt.Errorf("%s: resources is the string %q; the only string allowed is \"dynamic\"", e.URI, textclip.Bytes(dynamic, 40))
		}
		out.Dynamic = true
		return out, nil
	}
	if json.Unmarshal(e.Resources, &out.Resources) != nil || out.Resources == nil {
		return out, fmt.Errorf("%s: resources must be an array of {uri, digest, size} or \"dynamic\", got %s", e.URI, orAbsent(e.Resources))
	}
	return out, fileRefsProblem(out)
}

// fileRefsProblem checks a Skill's resource list.
func fileRefsProblem(e skillEntry) error {
	if len(e.Resources) > maxSkillEntries {
		return fmt.Errorf("%s: %d resources, over the %d a skill may hold", e.URI, len(e.Resources), maxSkillEntries)
	}
	seen := map[string]bool{}
	var total int64
	for i, f := range e.Resources {
		switch {
		case !strings.HasPrefix(f.URI, e.root()+"/"):
			return fmt.Errorf("%s: resources[%d] uri %q is outside the skill's root %s", e.URI, i, textclip.Bytes(f.URI, 80), e.root())
		case seen[f.URI]:
			return fmt.Errorf("%s: resources lists %s twice", e.URI, f.URI)
		case !digestPattern.MatchString(f.Digest):
			return fmt.Errorf("%s: resources[%d] digest %q is not \"sha256:<64 lowercase hex>\"", e.URI, i, textclip.Bytes(f.Digest, 80))
		case f.Size == nil || *f.Size < 0:
			return fmt.Errorf("%s: resources[%d] (%s) needs a size ≥ 0", e.URI, i, f.URI)
		}
		seen[f.URI] = true
		total += *f.Size
	}
	if !seen[e.URI] {
		return fmt.Errorf("%s: resources does not list the skill's own %s", e.URI, skillFile)
	}
	if total > maxSkillBytes {
		return fmt.Errorf("%s: resources total %d bytes, over the %d a skill may hold", e.URI, total, maxSkillBytes)
	}
	return nil
}

// listSkillEntries pages through skills/list in w's era, at most
// maxListPages pages (more says there were more: a huge agent is checked
// on the entries read). An entry seen on two pages was split across
// them, which the extension forbids.
func (r *runner) listSkillEntries(w wire) (all []skillEntry, pages int, more bool, err error) {
	pageOf := map[string]int{}
	more, err = r.paginateIn(w, "skills/list", nil, func(raw json.RawMessage) (string, error) {
		pages++
		var page struct {
			Skills     []json.RawMessage `json:"skills"`
			NextCursor string            `json:"nextCursor"`
		}
		if json.Unmarshal(raw, &page) != nil || page.Skills == nil {
			return "", fmt.Errorf("skills/list page %d has no \"skills\" array: %s", pages, textclip.Bytes(string(raw), 80))
		}
		for _, item := range page.Skills {
			e, err := parseSkillEntry(item)
			if prev, dup := pageOf[e.URI]; dup && e.URI != "" {
				if prev != pages {
					return "", fmt.Errorf("skills/list entry %s appears on pages %d and %d: an entry is never split across pages", e.URI, prev, pages)
				}
				return "", fmt.Errorf("skills/list lists %s twice on page %d", e.URI, pages)
			}
			if err != nil {
				return "", fmt.Errorf("skills/list page %d: %v", pages, err)
			}
			pageOf[e.URI] = pages
			all = append(all, e)
		}
		return page.NextCursor, nil
	})
	return all, pages, more, err
}

// pagesNote says how many pages a list took, or that it was cut short.
func pagesNote(pages int, more bool) string {
	if more {
		return fmt.Sprintf("in the first %d pages (not read further)", maxListPages)
	}
	return fmt.Sprintf("in %d page(s)", pages)
}

// skillsExtensionChecks check the skills extension on the legacy session
// when initialize declares it (docs/selftest.md §4).
func (r *runner) skillsExtensionChecks() {
	r.check("skills/list", r.checkSkillsList)
	r.check("skills/resources", func() outcome {
		return r.withEntries(func(w wire, _ bool) outcome { return r.checkSkillFiles(w) })
	})
	r.check("skills/get", func() outcome {
		return r.withEntries(func(w wire, _ bool) outcome { return r.checkSkillsGet(w) })
	})
	r.check("skills/unknown", func() outcome {
		w, _, out, ok := r.needSkillsExtension()
		if !ok {
			return out
		}
		return r.checkSkillsUnknown(w)
	})
	r.check("skills/directory-read", func() outcome {
		return r.withEntries(func(w wire, dirRead bool) outcome {
			if !dirRead {
				return skip("the skills extension is declared without directoryRead:true")
			}
			return r.checkDirectoryRead(w)
		})
	})
}

// needSkillsExtension returns the legacy session when initialize declared
// the skills extension, or the outcome to record instead.
func (r *runner) needSkillsExtension() (wire, bool, outcome, bool) {
	c, err := r.session()
	if err != nil {
		return wire{}, false, fail("%v", err), false
	}
	if r.initResult == nil {
		return wire{}, false, fail("cannot check: %s", r.fatal), false
	}
	declared, dirRead, problem := skillsSettings(r.initResult.Capabilities)
	switch {
	case !declared:
		return wire{}, false, skip("initialize does not declare capabilities.extensions[%q]", skillsExtension), false
	case problem != "":
		return wire{}, false, fail("%s", problem), false
	}
	return wire{c: c}, dirRead, outcome{}, true
}

// withEntries runs fn when skills/list gave entries.
func (r *runner) withEntries(fn func(w wire, dirRead bool) outcome) outcome {
	w, dirRead, out, ok := r.needSkillsExtension()
	if !ok {
		return out
	}
	if r.skillEntries == nil {
		return skip("needs the skills/list entries: %s", r.entriesErr)
	}
	return fn(w, dirRead)
}

// checkSkillsList lists the skills and validates every entry.
func (r *runner) checkSkillsList() outcome {
	w, _, out, ok := r.needSkillsExtension()
	if !ok {
		if out.status == StatusFail {
			r.entriesErr = "skills/list failed"
		} else {
			r.entriesErr = out.detail
		}
		return out
	}
	entries, pages, more, err := r.listSkillEntries(w)
	if err != nil {
		r.entriesErr = "skills/list failed"
		return fail("%v", err)
	}
	r.skillEntries = entries
	dynamic := 0
	for _, e := range entries {
		if e.Dynamic {
			dynamic++
		}
	}
	return pass("%d skills %s, %d with dynamic resources", len(entries), pagesNote(pages, more), dynamic)
}

// checkSkillFiles reads every resource of each sampled skill and
// compares its bytes with the listed digest and size, and its SKILL.md's
// frontmatter with the listed one (hosts compare them and refuse a
// skill that differs).
func (r *runner) checkSkillFiles(w wire) outcome {
	return eachSampled(r, r.skillEntries, "skills", func(e skillEntry) (string, error) {
		if e.Dynamic {
			return "skip", nil
		}
		for _, f := range e.Resources {
			_, b, problem, err := r.readOne(w, f.URI)
			switch {
			case problem != "" || err != nil:
				return problem, err
			case int64(len(b)) != *f.Size:
				return fmt.Sprintf("%s: listed size %d, read %d bytes", f.URI, *f.Size, len(b)), nil
			case digest.Of(b) != f.Digest:
				return fmt.Sprintf("%s: listed digest %s, but the bytes read hash to %s", f.URI, f.Digest, digest.Of(b)), nil
			}
			if f.URI != e.URI {
				continue
			}
			fm, ferr := parseFrontmatter(string(b))
			if ferr != nil {
				return fmt.Sprintf("%s: %v", f.URI, ferr), nil
			}
			if !sameJSON(fm, e.Frontmatter) {
				return fmt.Sprintf("%s: the listed frontmatter differs from the one the file holds (%s vs %s)", e.URI, jsonSnippet(e.Frontmatter), jsonSnippet(fm)), nil
			}
		}
		return "", nil
	})
}

// jsonSnippet renders v for a detail.
func jsonSnippet(v any) string {
	b, _ := json.Marshal(v)
	return textclip.Bytes(string(b), 80)
}

// checkSkillsGet asks skills/get for each sampled skill and expects its
// skills/list entry back.
func (r *runner) checkSkillsGet(w wire) outcome {
	return eachSampled(r, r.skillEntries, "skills", func(e skillEntry) (string, error) {
		return r.skillsGetProblem(w, e)
	})
}

// skillsGetProblem says what is wrong with skills/get of a listed entry.
func (r *runner) skillsGetProblem(w wire, e skillEntry) (string, error) {
	raw, rerr, err := r.request(w, "skills/get", map[string]any{"uri": e.URI})
	if err != nil {
		return "", err
	}
	if rerr != nil {
		return fmt.Sprintf("skills/get %s answered %v", e.URI, rerr), nil
	}
	var res struct {
		Skill json.RawMessage `json:"skill"`
	}
	if json.Unmarshal(raw, &res) != nil || !isJSONObject(res.Skill) {
		return fmt.Sprintf("skills/get %s: result has no \"skill\" object", e.URI), nil
	}
	var got, want any
	json.Unmarshal(res.Skill, &got)
	json.Unmarshal(e.raw, &want)
	if !sameJSON(got, want) {
		return fmt.Sprintf("skills/get %s: %s differs from its skills/list entry %s", e.URI, textclip.Bytes(string(res.Skill), 80), textclip.Bytes(string(e.raw), 80)), nil
	}
	return "", nil
}

// checkSkillsUnknown asks skills/get for a skill no server serves.
func (r *runner) checkSkillsUnknown(w wire) outcome {
	raw, rerr, err := r.request(w, "skills/get", map[string]any{"uri": unknownSkillURI})
	switch {
	case err != nil:
		return fail("%v", err)
	case rerr == nil:
		return fail("skills/get %s answered a result (%s); an unserved skill is error %d", unknownSkillURI, textclip.Bytes(string(raw), 60), codeInvalidParams)
	case rerr.Code != codeInvalidParams:
		return fail("skills/get %s answered %v, want code %d", unknownSkillURI, rerr, codeInvalidParams)
	}
	return pass("%s: %v", unknownSkillURI, rerr)
}

// checkDirectoryRead reads each sampled skill's root directory: its
// direct children, SKILL.md among them.
func (r *runner) checkDirectoryRead(w wire) outcome {
	return eachSampled(r, r.skillEntries, "skill directories", func(e skillEntry) (string, error) {
		root := e.root()
		var children []resourceInfo
		_, err := r.paginateIn(w, "resources/directory/read", map[string]any{"uri": root}, func(raw json.RawMessage) (string, error) {
			var page struct {
				Resources  []resourceInfo `json:"resources"`
				NextCursor string         `json:"nextCursor"`
			}
			if json.Unmarshal(raw, &page) != nil || page.Resources == nil {
				return "", errors.New("result has no \"resources\" array")
			}
			children = append(children, page.Resources...)
			return page.NextCursor, nil
		})
		if err != nil {
			if w.c.alive() {
				return fmt.Sprintf("resources/directory/read %s: %v", root, err), nil
			}
			return "", err
		}
		return directoryProblem(root, children), nil
	})
}

// directoryProblem checks a directory listing of root.
func directoryProblem(root string, children []resourceInfo) string {
	hasSkillMD := false
	for _, ch := range children {
		rest, inside := strings.CutPrefix(ch.URI, root+"/")
		rest = strings.TrimSuffix(rest, "/")
		if !inside || rest == "" || strings.Contains(rest, "/") {
			return fmt.Sprintf("resources/directory/read %s lists %q, which is not a direct child", root, textclip.Bytes(ch.URI, 80))
		}
		hasSkillMD = hasSkillMD || rest == skillFile
	}
	if !hasSkillMD {
		return fmt.Sprintf("resources/directory/read %s does not list %s among its %d children", root, skillFile, len(children))
	}
	return ""
}
