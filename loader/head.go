package loader

import (
	"fmt"

	"github.com/agent3md/agent3md/agentfile"
)

// Head is what the start of an agent file says about the agent: its name
// and, when the file opens with its identity plane, that plane's body. An
// MCP server answers the handshake from it while the whole file loads, so
// a client's first answer does not wait on the size of the agent.
type Head struct {
	// Name is the agent's name, exactly as Agent.Info().Name will read it
	// (the frontmatter's title or agent key, else "agent").
	Name string
	// Identity is the identity plane's body when IdentityKnown. It is
	// unknown when the first plane is not kind=identity: a later plane may
	// then be the identity.
	Identity      string
	IdentityKnown bool
	// ContentHash is the file's SHA-256 when the catalog cache holds a
	// stamp that vouches for it (see Options.CatalogCache): the key of
	// every cache derived from the file, known before the file is read,
	// so a server can open those caches while the file loads. "" when
	// there is no such stamp.
	ContentHash string
}

// ReadHead reads the frontmatter and the first plane of the agent file at
// path, with the same refusals as Open (not a regular file, unreadable,
// limits) for that part of the file. The rest of the file is not read,
// so its errors are Open's to report.
func ReadHead(path string, opts *Options) (*Head, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	po := o.Parse
	po.File, po.Planes = path, 1
	cat, err := agentfile.Parse(f, &po)
	if err != nil {
		return nil, err
	}
	info := cat.Agent()
	h := &Head{Name: info.Name}
	if o.CatalogCache != "" {
		if sig, ok := fileSig(f); ok {
			h.ContentHash, _ = readStamp(stampPath(o.CatalogCache, path, limitsKey(o.Parse.Limits)), sig)
		}
	}
	first := len(cat.Planes) > 0 && cat.Planes[0].Attributes.Value("kind") == "identity"
	if !cat.Partial || first {
		h.IdentityKnown = true
		if info.Identity >= 0 {
			h.Identity, err = readBody(f, fi.Size(), &cat.Planes[info.Identity])
			if err != nil {
				return nil, fmt.Errorf("reading the identity of %s: %w", path, err)
			}
		}
	}
	return h, nil
}
