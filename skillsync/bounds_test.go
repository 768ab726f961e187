package skillsync

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// hostile serves a fake whose answers hook may replace: a server that
// lies about its listings on purpose. It counts the requests, and past
// stopAfter it answers every one with an error, so a sync that would go
// on for ever ends (and the test sees why).
type hostile struct {
	*fake
	hook     func(method string, p hostileParams) (result any, handled bool)
	requests atomic.Int64
}

type hostileParams struct {
	URI    string `json:"uri"`
	Cursor string `json:"cursor"`
}

const stopAfter = 20_000

// errRunaway is what the hostile server answers past stopAfter requests.
const errRunaway = "the test's server stopped answering after 20000 requests"

func (h *hostile) serve(t *testing.T) string {
	t.Helper()
	return newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, ok := readCall(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if h.requests.Add(1) > stopAfter {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": rpcErr{-32603, errRunaway}})
			return
		}
		var p hostileParams
		json.Unmarshal(m.Params, &p)
		if res, ok := h.hook(m.Method, p); ok {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			return
		}
		w.Write(h.answer(m))
	})) + "/mcp"
}

// freshCursor is a cursor never given before, n bytes long.
func freshCursor(n int) string {
	b := make([]byte, (n+1)/2)
	rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// TestHostileListings: a server whose listings never end, loop, or
// carry more than a skill holds gets a bounded sync: the listing ends
// with an error naming the flag that bounds it, or the skill is refused
// with its reason, after a handful of requests, never stopAfter.
func TestHostileListings(t *testing.T) {
	bigFrontmatter, _ := json.Marshal(map[string]any{"name": "fat", "description": strings.Repeat("x", 1<<20)})
	for _, tt := range []struct {
		name    string
		dynamic bool
		lim     Limits
		hook    func(method string, p hostileParams) (any, bool)
		err     string // the sync's error; "" when it succeeds
		refused string // a refusal reason, when it succeeds
		most    int64  // at most this many requests
	}{
		{name: "a folder that lists itself", dynamic: true,
			hook: func(method string, p hostileParams) (any, bool) {
				if method != "resources/directory/read" || p.URI != fileURI("skill-00", "references") {
					return nil, false
				}
				return map[string]any{"resources": []any{
					map[string]any{"uri": p.URI, "name": "references", "mimeType": "inode/directory"},
				}}, true
			},
			refused: `its folder "references" is listed twice`, most: 40},
		{name: "a folder that lists another's folder", dynamic: true,
			hook: func(method string, p hostileParams) (any, bool) {
				if method != "resources/directory/read" || p.URI != fileURI("skill-00", "references") {
					return nil, false
				}
				return map[string]any{"resources": []any{
					map[string]any{"uri": fileURI("skill-00", "assets/deeper"), "name": "deeper", "mimeType": "inode/directory"},
				}}, true
			},
			refused: `its folder "references" lists folder "assets/deeper", which is not inside it`, most: 40},
		{name: "a fresh 1 MiB cursor on every empty page",
			hook: func(method string, p hostileParams) (any, bool) {
				if method != "skills/list" {
					return nil, false
				}
				return map[string]any{"skills": []any{}, "nextCursor": freshCursor(1 << 20)}, true
			},
			err: "skills/list: the server's next cursor is 1048576 bytes, over the 16384-byte bound (--max-cursor-bytes)", most: 4},
		{name: "a fresh cursor on every empty page", lim: Limits{MaxPages: 50},
			hook: func(method string, p hostileParams) (any, bool) {
				if method != "skills/list" {
					return nil, false
				}
				return map[string]any{"skills": []any{}, "nextCursor": freshCursor(32)}, true
			},
			err: "skills/list: more than 50 pages of listings in one pass (--max-pages)", most: 60},
		{name: "a fresh cursor on every empty directory page", dynamic: true, lim: Limits{MaxPages: 50},
			hook: func(method string, p hostileParams) (any, bool) {
				if method != "resources/directory/read" {
					return nil, false
				}
				return map[string]any{"resources": []any{}, "nextCursor": freshCursor(32)}, true
			},
			err: "resources/directory/read: more than 50 pages of listings in one pass (--max-pages)", most: 60},
		{name: "the same cursor again",
			hook: func(method string, p hostileParams) (any, bool) {
				if method != "skills/list" {
					return nil, false
				}
				return map[string]any{"skills": []any{}, "nextCursor": "again"}, true
			},
			err: `skills/list: the server gave cursor "again" twice; its paging loops`, most: 5},
		{name: "1 MiB of frontmatter",
			hook: func(method string, p hostileParams) (any, bool) {
				if method != "skills/list" || p.Cursor != "" {
					return nil, false
				}
				return map[string]any{"skills": []any{map[string]any{"uri": "skill://fat/SKILL.md",
					"frontmatter": json.RawMessage(bigFrontmatter), "resources": []any{}}}, "nextCursor": "0"}, true
			},
			refused: "skills/list gives 1048607 bytes of frontmatter, over the 65536-byte bound (--max-frontmatter-bytes)", most: 40},
		{name: "listings over their bound", lim: Limits{MaxListingBytes: 2000},
			hook: func(string, hostileParams) (any, bool) { return nil, false },
			err:  "skills/list: the listings give over 2000 bytes of entries (--max-listing-bytes)", most: 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake("ext", library(4))
			f.cfg.Dynamic = tt.dynamic
			h := &hostile{fake: f, hook: tt.hook}
			lim := tt.lim
			sum, err := syncURL(t, h.serve(t), t.TempDir(), &Options{Limits: &lim})
			if n := h.requests.Load(); n > tt.most {
				t.Errorf("%d requests, want at most %d", n, tt.most)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("sync: %v", err)
			}
			var reasons []string
			for _, r := range sum.Refused {
				reasons = append(reasons, r.Skill+": "+r.Reason)
			}
			if !strings.Contains(strings.Join(reasons, "\n"), tt.refused) {
				t.Fatalf("refused %q, want a reason %q", reasons, tt.refused)
			}
			if len(sum.Added) == 0 {
				t.Errorf("nothing synced beside the refused skill: %+v", sum)
			}
		})
	}
}

// TestHostileBoundsDefaults: zero bounds take the defaults.
func TestHostileBoundsDefaults(t *testing.T) {
	got := (&Limits{}).withDefaults()
	want := fmt.Sprint(DefaultMaxPages, DefaultMaxCursorBytes, DefaultMaxListingBytes, DefaultMaxFrontmatterBytes)
	if s := fmt.Sprint(got.MaxPages, got.MaxCursorBytes, got.MaxListingBytes, got.MaxFrontmatterBytes); s != want {
		t.Errorf("defaults %s, want %s", s, want)
	}
}
