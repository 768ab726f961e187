package mcp

import (
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/agent3md/agent3md/agentfile"
)

// Answers that depend only on the agent generation, the request and the
// revision (tools/list, list_skills, get_skill, resolve_skill,
// resources/read) are encoded once per
// generation and reused: the lists are the largest answers a small agent
// gives, and a file read is what skill-provider clients repeat; rebuilding
// them cost several times a ping (a folder file is opened through its
// skill's root, about ten system calls). A generation's bytes never change
// (a reload makes a new generation), so a cached read serves exactly what the
// generation read. Bounded in count and bytes so a huge agent is never
// pinned: past the bounds answers are built each time.
const (
	maxCachedAnswer      = 256 << 10
	maxCachedAnswers     = 4096
	maxCachedAnswerBytes = 8 << 20
	maxCacheKeyArgs      = 256
)

// answerCache holds the encoded answers for one catalog; a re-scan (a new
// catalog) empties it. Safe for concurrent use.
type answerCache struct {
	mu      sync.Mutex
	cat     *agentfile.Catalog
	entries map[string]preEncoded
	bytes   int // the cached answers' total size
	// seen admits an answer on its second request: a key's hash sits in
	// its slot after the first. A client walking many skills once each
	// (a first read of every skill of a large agent) then costs no copy
	// of each answer and no growth of entries, and does not fill the
	// bounds with answers nobody asks for again. A slot two keys share
	// only delays one of them.
	seen *[seenSlots]uint64
}

// seenSlots sizes answerCache.seen: 32 KB per catalog in use.
const seenSlots = 4096

// cacheSeed hashes the cache keys for answerCache.seen.
var cacheSeed = maphash.MakeSeed()

// cacheKey names a legacy request whose answer may be cached, or reports
// false: tools/list, resources/read, and tools/call with small arguments
// of a tool that allows it (toolDef.cache). bodies is set for the answers
// that hold skill bodies: those are cached only for a pinned agent
// (loader.Agent.Pinned), because an agent that follows its file notices
// an edit when it reads a body, and a cached body would hide the edit.
func cacheKey(method, version string, params map[string]json.RawMessage) (key string, bodies, ok bool) {
	for k := range params {
		if k != "name" && k != "arguments" && k != "cursor" && k != "uri" {
			return "", false, false // _meta and the like: keep the general path
		}
	}
	switch method {
	case methodResourcesRead:
		uri, ok := plainString(params["uri"])
		if !ok || len(params) != 1 || len(uri) > maxCacheKeyArgs {
			return "", false, false
		}
		return method + "\x00" + version + "\x00" + uri, false, true
	case methodToolsList:
		return method + "\x00" + version + "\x00" + string(params["cursor"]), false, true
	case methodToolsCall:
		name, _ := plainString(params["name"])
		args := params["arguments"]
		if len(args) > maxCacheKeyArgs {
			return "", false, false
		}
		if t := toolByName(name); t != nil && t.cache != cacheNever {
			return name + "\x00" + version + "\x00" + string(args), t.cache == cacheBodies, true
		}
	}
	return "", false, false
}

// get returns the answer cached for key under catalog cat, or nil.
func (c *answerCache) get(cat *agentfile.Catalog, key string) preEncoded {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cat != cat {
		return nil
	}
	return c.entries[key]
}

// admit reports whether key's answer should be kept now: true from its
// second request under catalog cat, within the bounds.
func (c *answerCache) admit(cat *agentfile.Catalog, key string) bool {
	h := maphash.String(cacheSeed, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cat != cat || c.entries == nil {
		c.cat, c.entries, c.bytes, c.seen = cat, map[string]preEncoded{}, 0, nil
	}
	if len(c.entries) >= maxCachedAnswers {
		return false
	}
	if c.seen == nil {
		c.seen = new([seenSlots]uint64)
	}
	slot := &c.seen[h%seenSlots]
	if *slot != h {
		*slot = h
		return false
	}
	return true
}

// put caches enc under key for catalog cat, within the bounds.
func (c *answerCache) put(cat *agentfile.Catalog, key string, enc preEncoded) {
	if len(enc) > maxCachedAnswer {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cat != cat || c.entries == nil {
		c.cat, c.entries, c.bytes, c.seen = cat, map[string]preEncoded{}, 0, nil
	}
	if len(c.entries) >= maxCachedAnswers || c.bytes+len(enc) > maxCachedAnswerBytes {
		return
	}
	if _, dup := c.entries[key]; !dup {
		c.bytes += len(enc)
	}
	c.entries[key] = enc
}

// cacheable reports whether a result may be reused: never a tool error
// (it may say the agent failed to load, or name a passing condition).
func cacheable(res any) bool {
	if r, ok := res.(encodedTool); ok {
		return !r.isError
	}
	return true
}

// encodeResult encodes a result as compact JSON without HTML escaping, as
// appendAnswer would.
func encodeResult(res any) (preEncoded, error) {
	return appendEncoded(nil, res)
}
