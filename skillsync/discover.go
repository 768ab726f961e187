package skillsync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// Discovery, in order of what the server offers (docs/sync.md §2): the
// skills extension (skills/list with digests; resources/directory/read
// for a skill listed as "dynamic"); else resources/list, scanning for
// skill://<path>/SKILL.md and each skill's _manifest; else the older
// skill://<name> resources, one SKILL.md each.

// Discovery methods, as the summary names them.
const (
	viaSkillsExtension = "skills-extension"
	viaManifests       = "resources"
	viaSkillResources  = "skill-resources"
)

// listing is what discovery found.
type listing struct {
	via    string
	skills []*remote
	// unlisted are URIs that looked like skills but do not name one,
	// with why, for the summary.
	unlisted []Refusal
}

// maxRelists bounds how often a listing starts over because the server
// changed under it.
const maxRelists = 3

// errRelist is a listing whose cursor the server no longer takes: its
// content changed between two pages (our servers expire cursors on a
// reload), so the listing starts over.
var errRelist = errors.New("the server's listing changed while it was read")

// discover lists the source's skills, starting over when the server's
// listing changes under it. Each try has the whole listing budget.
func discover(ctx context.Context, k *conn, lim *Limits, workers int) (*listing, error) {
	var err error
	for range maxRelists {
		var l *listing
		if l, err = discoverOnce(ctx, k, newBudget(lim), workers); !errors.Is(err, errRelist) {
			return l, err
		}
	}
	return nil, fmt.Errorf("gave up after %d tries: %w", maxRelists, err)
}

func discoverOnce(ctx context.Context, k *conn, b *budget, workers int) (*listing, error) {
	if k.skillsExt {
		l, err := listSkills(ctx, k, b, workers)
		if err == nil || !isMissingMethod(err) {
			return l, err
		}
	}
	if !k.resources {
		return nil, fmt.Errorf("the server offers no skills: it declares neither the skills extension (%s) nor resources", extSkills)
	}
	return listResources(ctx, k, b, workers)
}

// listSkills reads skills/list; skills listed as "dynamic" get their
// files from resources/directory/read.
func listSkills(ctx context.Context, k *conn, b *budget, workers int) (*listing, error) {
	lim := b.lim
	l := &listing{via: viaSkillsExtension}
	var dynamic []*remote
	err := b.pages(ctx, "skills/list", func(cursor string) (string, error) {
		tctx, cancel := k.timed(ctx)
		page, err := k.s.ListSkills(tctx, cursor)
		cancel()
		if err != nil {
			return "", err
		}
		for _, e := range page.Skills {
			if err := b.keep(len(e.URI) + len(e.Frontmatter) + len(e.Resources)); err != nil {
				return "", err
			}
			r, dyn, err := fromEntry(e, lim)
			if err != nil {
				l.unlisted = append(l.unlisted, Refusal{Skill: textclip.Bytes(e.URI, quoteBytes), Reason: err.Error()})
				continue
			}
			if len(l.skills) >= lim.MaxSkills {
				return "", fmt.Errorf("more than %d skills (--max-skills)", lim.MaxSkills)
			}
			l.skills = append(l.skills, r)
			if dyn {
				dynamic = append(dynamic, r)
			}
		}
		return page.NextCursor, nil
	})
	if err != nil {
		return nil, err
	}
	if err := eachLimited(ctx, workers, dynamic, func(r *remote) error {
		return walkDirectory(ctx, k, r, b)
	}); err != nil {
		return nil, err
	}
	return l, nil
}

// walkDirectory lists a dynamic skill's files with
// resources/directory/read, folder by folder. The files have no digests:
// they are read to be compared. A folder is read once: each one listed
// must lie below the folder that lists it and be new, and there are at
// most --max-skill-files of them, so a server whose folders list
// themselves (or each other) cannot keep the walk going; the pages come
// out of the pass's budget (--max-pages, --max-listing-bytes).
func walkDirectory(ctx context.Context, k *conn, r *remote, b *budget) error {
	if !k.directoryRead {
		r.refuse("skills/list gives its files as \"dynamic\" and the server offers no resources/directory/read to list them")
		return nil
	}
	w := &walk{r: r, lim: b.lim, seen: map[string]bool{"": true}, queue: []folder{{uri: r.Root}}}
	for len(w.queue) > 0 && r.Problem == "" {
		dir := w.queue[0]
		w.queue = w.queue[1:]
		err := b.pages(ctx, "resources/directory/read", func(cursor string) (string, error) {
			tctx, cancel := k.timed(ctx)
			page, err := k.s.ReadDirectory(tctx, dir.uri, cursor)
			cancel()
			if err != nil {
				return "", err
			}
			for _, e := range page.Resources {
				if err := b.keep(len(e.URI) + len(e.MimeType)); err != nil {
					return "", err
				}
				if !w.add(dir, e) {
					return "", nil
				}
			}
			return page.NextCursor, nil
		})
		if err != nil {
			if isUnknown(err) {
				r.refuse("%v", err)
				return nil
			}
			return err
		}
	}
	if r.Problem == "" {
		if err := r.finish(b.lim); err != nil {
			r.refuse("%v", err)
		}
	}
	return nil
}

// folder is a folder of a dynamic skill: its URI, and its path inside
// the skill ("" for the skill's own).
type folder struct{ uri, path string }

// walk is one dynamic skill's directory walk.
type walk struct {
	r     *remote
	lim   *Limits
	seen  map[string]bool // folders queued or read, by path
	queue []folder
}

// add takes one entry of folder dir's listing: a folder to read next or
// a file. It refuses the skill and reports false when the entry cannot
// be taken.
func (w *walk) add(dir folder, e mcpclient.Resource) bool {
	if e.MimeType != "inode/directory" {
		size := int64(-1)
		if e.Size != nil {
			size = *e.Size
		}
		if err := w.r.addFile(e.URI, "", size, w.lim); err != nil {
			w.r.refuse("its directory lists %v", err)
			return false
		}
		return true
	}
	p, err := relPath(w.r.root, e.URI)
	switch {
	case err != nil:
		w.r.refuse("its directory lists %v", err)
	case w.seen[p]:
		w.r.refuse("its folder %q is listed twice (the folders list each other or themselves)", textclip.Bytes(p, quoteBytes))
	case dir.path != "" && !strings.HasPrefix(p, dir.path+"/"):
		w.r.refuse("its folder %q lists folder %q, which is not inside it", textclip.Bytes(dir.path, quoteBytes), textclip.Bytes(p, quoteBytes))
	case len(w.seen) > w.lim.MaxSkillFiles:
		w.r.refuse("more than %d folders (--max-skill-files)", w.lim.MaxSkillFiles)
	default:
		w.seen[p] = true
		w.queue = append(w.queue, folder{uri: e.URI, path: p})
		return true
	}
	return false
}

// listResources reads resources/list for skill://<path>/SKILL.md (with
// their _manifest when listed, and any other file listed below their
// directory); when there are none, for skill://<name> resources.
func listResources(ctx context.Context, k *conn, b *budget, workers int) (*listing, error) {
	lim := b.lim
	var listed []struct{ uri, mime string }
	err := b.pages(ctx, "resources/list", func(cursor string) (string, error) {
		tctx, cancel := k.timed(ctx)
		page, err := k.s.ListResources(tctx, cursor)
		cancel()
		if err != nil {
			return "", err
		}
		for _, r := range page.Resources {
			if strings.HasPrefix(r.URI, skillScheme) {
				if err := b.keep(len(r.URI) + len(r.MimeType)); err != nil {
					return "", err
				}
				if len(listed) >= lim.MaxSkills*(lim.MaxSkillFiles+2) {
					return "", fmt.Errorf("more skill:// resources than %d skills could hold (--max-skills)", lim.MaxSkills)
				}
				listed = append(listed, struct{ uri, mime string }{r.URI, r.MimeType})
			}
		}
		return page.NextCursor, nil
	})
	if err != nil {
		return nil, err
	}
	l := &listing{via: viaManifests}
	byRoot := map[string]*remote{}
	for _, r := range listed {
		if !strings.HasSuffix(r.uri, "/SKILL.md") {
			continue
		}
		rem, err := newRemote(r.uri)
		if err != nil {
			l.unlisted = append(l.unlisted, Refusal{Skill: textclip.Bytes(r.uri, quoteBytes), Reason: err.Error()})
			continue
		}
		if byRoot[rem.Root] != nil {
			continue
		}
		if len(l.skills) >= lim.MaxSkills {
			return nil, fmt.Errorf("more than %d skills (--max-skills)", lim.MaxSkills)
		}
		byRoot[rem.Root] = rem
		l.skills = append(l.skills, rem)
	}
	if len(l.skills) == 0 {
		return listAliases(listed, lim, l), nil
	}
	manifests := map[*remote]string{}
	extra := map[*remote][]string{}
	for _, r := range listed {
		root, last := splitLast(r.uri)
		if rem := byRoot[root]; rem != nil && last == "_manifest" {
			manifests[rem] = r.uri
			continue
		}
		if rem := owner(byRoot, r.uri); rem != nil && last != "SKILL.md" {
			extra[rem] = append(extra[rem], r.uri)
		}
	}
	err = eachLimited(ctx, workers, l.skills, func(r *remote) error {
		return r.filesFromResources(ctx, k, manifests[r], extra[r], lim)
	})
	return l, err
}

// listAliases makes one-file skills of skill://<name> resources.
func listAliases(listed []struct{ uri, mime string }, lim *Limits, l *listing) *listing {
	l.via = viaSkillResources
	seen := map[string]bool{}
	for _, r := range listed {
		name := strings.TrimPrefix(r.uri, skillScheme)
		if strings.Contains(name, "/") || seen[name] || name == "prompt-xml" {
			continue
		}
		seen[name] = true
		if err := checkName(name); err != nil {
			l.unlisted = append(l.unlisted, Refusal{Skill: textclip.Bytes(r.uri, quoteBytes), Reason: err.Error()})
			continue
		}
		if len(l.skills) >= lim.MaxSkills {
			break
		}
		rem := &remote{Name: name, URI: r.uri, Root: r.uri, root: []string{name}}
		rem.Files = []remoteFile{{Path: "SKILL.md", URI: r.uri, Size: -1}}
		l.skills = append(l.skills, rem)
	}
	return l
}

// splitLast is uri without its last segment, and that segment.
func splitLast(uri string) (string, string) {
	i := strings.LastIndexByte(uri, '/')
	if i < 0 {
		return "", uri
	}
	return uri[:i], uri[i+1:]
}

// owner is the listed skill whose directory holds uri, the deepest one.
func owner(byRoot map[string]*remote, uri string) *remote {
	for dir, _ := splitLast(uri); strings.HasPrefix(dir, skillScheme) && len(dir) > len(skillScheme); dir, _ = splitLast(dir) {
		if r := byRoot[dir]; r != nil {
			return r
		}
	}
	return nil
}

// filesFromResources fills a skill found by resources/list: from its
// _manifest when it has one, else SKILL.md and the files listed below it.
func (r *remote) filesFromResources(ctx context.Context, k *conn, manifestURI string, extra []string, lim *Limits) error {
	if manifestURI != "" {
		data, err := readResource(ctx, k, manifestURI, 1<<20+int64(lim.MaxSkillFiles)*2048)
		if err != nil {
			if isUnknown(err) {
				r.refuse("its _manifest is listed but not served: %v", err)
				return nil
			}
			return err
		}
		r.applyManifest(data, lim)
		return nil
	}
	if err := r.addFile(r.URI, "", -1, lim); err != nil {
		r.refuse("%v", err)
		return nil
	}
	for _, uri := range extra {
		if err := r.addFile(uri, "", -1, lim); err != nil {
			r.refuse("%v", err)
			return nil
		}
	}
	if err := r.finish(lim); err != nil {
		r.refuse("%v", err)
	}
	return nil
}
