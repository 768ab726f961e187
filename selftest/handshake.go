package selftest

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// Protocol revisions (docs/protocol.md §1).
const (
	latestLegacy = "2025-11-25"
	olderLegacy  = "2025-03-26"
	modernRev    = "2026-07-28"
	// bogusRev is a revision no server supports.
	bogusRev = "1900-01-01"
)

// legacyRevs are the revisions negotiated with initialize.
var legacyRevs = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// Modern per-request _meta keys (docs/protocol.md §1).
const (
	metaProtocolVersion = mcpclient.MetaProtocolVersion
	metaServerInfo      = mcpclient.MetaServerInfo
)

// JSON-RPC and MCP error codes the checks expect.
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
	codeResourceNotFound   = -32002
	codeUnsupportedVersion = -32022
)

// clientInfo is how the harness introduces itself.
var clientInfo = mcpclient.Implementation{Name: "agent3md-selftest", Version: "1"}

// initializeResult is the part of InitializeResult the checks read.
type initializeResult = mcpclient.InitializeResult

// spawnLegacy starts a server, initializes it asking for version and sends
// notifications/initialized.
func (r *runner) spawnLegacy(version string) (*conn, *initializeResult, error) {
	c, err := r.open()
	if err != nil {
		return nil, nil, err
	}
	m, err := c.call(r.ctx, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      clientInfo,
	})
	if err == nil && m.Error != nil {
		err = fmt.Errorf("initialize answered %v%s", m.Error, c.stderrNote())
	}
	var res initializeResult
	if err == nil {
		if uerr := json.Unmarshal(m.Result, &res); uerr != nil {
			err = fmt.Errorf("initialize result is not an InitializeResult: %v", uerr)
		}
	}
	if err == nil {
		err = c.notify("notifications/initialized", nil)
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, &res, nil
}

// legacyChecks runs the initialize handshake on the main session.
func (r *runner) legacyChecks() {
	r.check("legacy/initialize", func() outcome {
		c, res, err := r.spawnLegacy(latestLegacy)
		if err != nil {
			r.fatal = "no usable server session: " + err.Error()
			return fail("%v", err)
		}
		r.sess, r.initResult = c, res
		return negotiation(latestLegacy, res.ProtocolVersion)
	})
	r.check("legacy/serverInfo", func() outcome {
		if r.initResult == nil {
			return fail("cannot check: %s", r.fatal)
		}
		si := r.initResult.ServerInfo
		switch {
		case si == nil:
			return fail("initialize result has no serverInfo")
		case si.Name == "" || si.Version == "":
			return fail("serverInfo needs a non-empty name and version, got name=%q version=%q", si.Name, si.Version)
		}
		return pass("%s %s", si.Name, si.Version)
	})
	r.check("legacy/capabilities", func() outcome {
		if r.initResult == nil {
			return fail("cannot check: %s", r.fatal)
		}
		caps := r.initResult.Capabilities
		if caps == nil {
			return fail("initialize result has no capabilities object")
		}
		for k, v := range caps {
			if !isJSONObject(v) {
				return fail("capability %q must be an object, got %s", k, textclip.Bytes(string(v), 60))
			}
		}
		return pass("declares %s", strings.Join(sortedKeys(caps), ", "))
	})
	r.check("legacy/ping", func() outcome {
		c, err := r.session()
		if err != nil {
			return fail("%v", err)
		}
		if out, ok := r.ping(c); !ok {
			return out
		}
		// A reply to notifications/initialized would arrive by now.
		c.drain(50 * time.Millisecond)
		if strays := c.takeStrays(); len(strays) > 0 {
			return fail("server answered a notification: %s", describeStrays(strays))
		}
		return pass("ping answered {}; notifications/initialized got no reply")
	})
}

// ping sends a ping with a string id and checks it is answered with an
// empty object; ok=false carries the failing outcome.
func (r *runner) ping(c *conn) (outcome, bool) {
	m, err := c.callID(r.ctx, "selftest-ping-"+strconv.Itoa(c.nextID+1), "ping", nil)
	c.nextID++
	if err != nil {
		return fail("ping: %v", err), false
	}
	if m.Error != nil {
		return fail("ping answered %v", m.Error), false
	}
	if !isJSONObject(m.Result) {
		return fail("ping result must be an object ({}), got %s", textclip.Bytes(string(m.Result), 60)), false
	}
	return outcome{}, true
}

// olderVersionCheck initializes a fresh server with an older revision.
func (r *runner) olderVersionCheck() {
	r.check("legacy/initialize-"+olderLegacy, func() outcome {
		if r.fatal != "" {
			return fail("cannot check: %s", r.fatal)
		}
		c, res, err := r.spawnLegacy(olderLegacy)
		if err != nil {
			return fail("%v", err)
		}
		defer c.Close()
		return negotiation(olderLegacy, res.ProtocolVersion)
	})
}

// negotiation judges an initialize answer by the specification's one
// rule: a server that supports the requested revision echoes it, and one
// that does not answers another revision it supports (the client then
// decides whether it can go on). A client cannot know which revisions a
// server supports, so any handshake revision is legal; only an answer
// that is no handshake revision at all (empty, unknown, or the stateless
// 2026-07-28, which has no initialize) fails.
func negotiation(asked, got string) outcome {
	switch {
	case got == asked:
		return pass("protocolVersion %s echoed", asked)
	case slices.Contains(legacyRevs, got):
		return pass("asked for %s, server negotiated %s (it does not offer %s; legal version negotiation)", asked, got, asked)
	default:
		return fail("asked for %s, server answered protocolVersion %q; it must echo the requested revision or answer another handshake revision it supports (one of %s)", asked, got, strings.Join(legacyRevs, ", "))
	}
}

// negotiated is the revision the main legacy session runs under.
func (r *runner) negotiated() string {
	if r.initResult == nil {
		return latestLegacy
	}
	return r.initResult.ProtocolVersion
}

// discoverResult is the part of DiscoverResult the checks read.
type discoverResult struct {
	ResultType        string                     `json:"resultType"`
	SupportedVersions []string                   `json:"supportedVersions"`
	Capabilities      map[string]json.RawMessage `json:"capabilities"`
	Meta              map[string]json.RawMessage `json:"_meta"`
	TTLMs             json.RawMessage            `json:"ttlMs"`
	CacheScope        string                     `json:"cacheScope"`
	ServerInfo        json.RawMessage            `json:"serverInfo"`
}

// modernParams is params carrying the required modern _meta for version.
// (version is the revision named there: unsupported-version names one
// no server offers).
func modernParams(version string, extra map[string]any) map[string]any {
	p := mcpclient.ModernParams(clientInfo, extra)
	p["_meta"].(map[string]any)[metaProtocolVersion] = version
	return p
}

// modernChecks exercises the stateless 2026-07-28 revision on a fresh
// server that never sees initialize. They run even when legacy sessions
// failed: a server may offer only the modern revision.
func (r *runner) modernChecks() {
	names := []string{"modern/discover", "modern/unsupported-version", "modern/tools-list", "modern/resources", "modern/skills"}
	c, err := r.open()
	if err != nil {
		for _, n := range names {
			r.check(n, func() outcome { return fail("%v", err) })
		}
		return
	}
	defer c.Close()
	var disc *discoverResult
	unsupported := ""
	r.check("modern/discover", func() outcome {
		if why, refused := r.modernRefused(); refused {
			unsupported = why
			return skip("%s", unsupported)
		}
		m, err := c.call(r.ctx, "server/discover", modernParams(modernRev, nil))
		if err != nil {
			return fail("%v", err)
		}
		if m.Error != nil && m.Error.Code == codeMethodNotFound {
			unsupported = fmt.Sprintf("server does not offer the stateless %s revision (server/discover answered %v)", modernRev, m.Error)
			return skip("%s", unsupported)
		}
		if m.Error != nil {
			return fail("server/discover answered %v", m.Error)
		}
		d, out := checkDiscover(m.Result)
		disc = d
		r.modernOffered = true
		return out
	})
	r.check("modern/unsupported-version", func() outcome {
		if unsupported != "" {
			return skip("%s", unsupported)
		}
		return r.checkUnsupported(c, disc)
	})
	r.check("modern/tools-list", func() outcome {
		if unsupported != "" {
			return skip("%s", unsupported)
		}
		if disc != nil && disc.Capabilities != nil && disc.Capabilities["tools"] == nil {
			return skip("server/discover does not declare the tools capability")
		}
		return r.checkModernToolsList(c)
	})
	r.check("modern/resources", func() outcome {
		if out, ok := modernNeeds(c, disc, unsupported); !ok {
			return out
		}
		if disc.Capabilities["resources"] == nil {
			return skip("server/discover does not declare the resources capability")
		}
		return r.checkModernResources(wire{c: c, modern: true})
	})
	r.check("modern/skills", func() outcome {
		if out, ok := modernNeeds(c, disc, unsupported); !ok {
			return out
		}
		declared, _, problem := skillsSettings(disc.Capabilities)
		switch {
		case !declared:
			return skip("server/discover does not declare capabilities.extensions[%q]", skillsExtension)
		case problem != "":
			return fail("%s", problem)
		}
		return r.checkModernSkills(wire{c: c, modern: true})
	})
}

// modernNeeds returns the outcome of a modern check that cannot run: the
// revision is not offered, or server/discover gave no capabilities.
func modernNeeds(c *conn, disc *discoverResult, unsupported string) (outcome, bool) {
	switch {
	case unsupported != "":
		return skip("%s", unsupported), false
	case !c.alive():
		return fail("the stateless session is gone: %v", c.broken), false
	case disc == nil || disc.Capabilities == nil:
		return skip("needs the capabilities server/discover did not give"), false
	}
	return outcome{}, true
}

// checkDiscover validates a DiscoverResult (docs/protocol.md §1).
func checkDiscover(raw json.RawMessage) (*discoverResult, outcome) {
	var d discoverResult
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fail("server/discover result is not a DiscoverResult: %v", err)
	}
	var problems []string
	if d.ResultType != "complete" {
		problems = append(problems, fmt.Sprintf("resultType is %q, want \"complete\"", d.ResultType))
	}
	if !slices.Contains(d.SupportedVersions, modernRev) {
		problems = append(problems, fmt.Sprintf("supportedVersions %q lacks %s", d.SupportedVersions, modernRev))
	}
	if d.Capabilities == nil {
		problems = append(problems, "no capabilities object")
	}
	var si mcpclient.Implementation
	if err := json.Unmarshal(d.Meta[metaServerInfo], &si); err != nil || si.Name == "" {
		problems = append(problems, "no _meta[\""+metaServerInfo+"\"] with a name")
	}
	problems = append(problems, cacheProblems(d.TTLMs, d.CacheScope)...)
	if d.ServerInfo != nil {
		problems = append(problems, "a body serverInfo (modern results carry it in _meta only)")
	}
	if len(problems) > 0 {
		return &d, fail("server/discover: %s", strings.Join(problems, "; "))
	}
	return &d, pass("supportedVersions %s; ttlMs %s, cacheScope %s", strings.Join(d.SupportedVersions, ", "), d.TTLMs, d.CacheScope)
}

// cacheProblems checks the ttlMs/cacheScope pair required on modern list
// results.
func cacheProblems(ttl json.RawMessage, scope string) []string {
	var problems []string
	if n, err := strconv.ParseInt(string(ttl), 10, 64); err != nil || n < 0 {
		problems = append(problems, fmt.Sprintf("ttlMs must be an integer ≥ 0, got %s", orAbsent(ttl)))
	}
	if scope != "public" && scope != "private" {
		problems = append(problems, fmt.Sprintf("cacheScope must be \"public\" or \"private\", got %q", scope))
	}
	return problems
}

// checkUnsupported sends server/discover with a revision no server has.
func (r *runner) checkUnsupported(c *conn, disc *discoverResult) outcome {
	m, err := c.call(r.ctx, "server/discover", modernParams(bogusRev, nil))
	if err != nil {
		return fail("%v", err)
	}
	if m.Error == nil {
		return fail("server/discover for revision %s succeeded; it must fail with %d", bogusRev, codeUnsupportedVersion)
	}
	if m.Error.Code != codeUnsupportedVersion {
		return fail("revision %s answered %v, want code %d", bogusRev, m.Error, codeUnsupportedVersion)
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	if err := json.Unmarshal(m.Error.Data, &data); err != nil || len(data.Supported) == 0 {
		return fail("error %d needs data.supported listing the served revisions, got data %s", codeUnsupportedVersion, orAbsent(m.Error.Data))
	}
	if disc != nil && !sameSet(data.Supported, disc.SupportedVersions) {
		return fail("data.supported %q differs from server/discover's supportedVersions %q", data.Supported, disc.SupportedVersions)
	}
	return pass("%d with supported %s", codeUnsupportedVersion, strings.Join(data.Supported, ", "))
}

// isJSONObject reports whether raw is a JSON object.
func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// orAbsent renders raw JSON for a detail, or "nothing" when absent.
func orAbsent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	return textclip.Bytes(string(raw), 80)
}

// describeStrays summarizes unexpected responses for a detail.
func describeStrays(ms []*message) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		what := "result"
		if m.Error != nil {
			what = m.Error.String()
		}
		parts = append(parts, fmt.Sprintf("id %s → %s", orAbsent(m.ID), what))
	}
	return fmt.Sprintf("%d unexpected response(s): %s", len(ms), strings.Join(parts, "; "))
}
