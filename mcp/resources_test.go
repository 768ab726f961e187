package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

// rpc runs one request in process on sess and returns its result as JSON.
func rpc(t *testing.T, s *server, sess *session, method string, params map[string]any) (json.RawMessage, error) {
	t.Helper()
	raw := map[string]json.RawMessage{}
	for k, v := range params {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		raw[k] = b
	}
	res, err := s.dispatch(context.Background(), sess, method, raw)
	if err != nil {
		return nil, err
	}
	if pe, ok := res.(preEncoded); ok {
		return json.RawMessage(pe), nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b, nil
}

func mustRPC(t *testing.T, s *server, sess *session, method string, params map[string]any, into any) {
	t.Helper()
	b, err := rpc(t, s, sess, method, params)
	if err != nil {
		t.Fatalf("%s %v: %v", method, params, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: decoding %s: %v", method, b, err)
	}
}

func digest(text string) string {
	h := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(h[:])
}

type readResult struct {
	Contents []struct {
		URI, MimeType, Text string
	}
}

func readText(t *testing.T, s *server, sess *session, uri string) string {
	t.Helper()
	var r readResult
	mustRPC(t, s, sess, methodResourcesRead, map[string]any{"uri": uri}, &r)
	if len(r.Contents) != 1 {
		t.Fatalf("%s: %d contents, want 1", uri, len(r.Contents))
	}
	return r.Contents[0].Text
}

type testSkillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int    `json:"size"`
	} `json:"resources"`
}

// TestDigestsMatchReads: for every skill of every example agent (and the
// test agents), each file skills/list names has the digest and size of
// the bytes resources/read returns; the _manifest agrees; the listed
// SKILL.md size agrees; the skill://<name> alias reads as the SKILL.md and
// is never listed.
func TestDigestsMatchReads(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.3md")
	files = append(files, "testdata/ada.3md", "testdata/many.3md")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			a, err := loader.Open(file, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			s := newServer(&Options{Source: Loaded(a)})
			sess := newSession(nil)
			listed := map[string]int64{}
			var cursor *string
			for {
				params := map[string]any{}
				if cursor != nil {
					params["cursor"] = *cursor
				}
				var page struct {
					Resources []struct {
						URI, MimeType string
						Size          *int64
					}
					NextCursor string
				}
				mustRPC(t, s, sess, methodResourcesList, params, &page)
				for _, r := range page.Resources {
					if _, err := rpc(t, s, sess, methodResourcesRead, map[string]any{"uri": r.URI}); err != nil {
						t.Errorf("%s is listed but reading it fails: %v", r.URI, err)
					}
					if r.Size != nil {
						listed[r.URI] = *r.Size
					}
					if r.MimeType == mimeMarkdown && !strings.HasSuffix(r.URI, "/SKILL.md") {
						t.Errorf("%s is listed as Markdown but is not a SKILL.md: skill-provider clients would take it for a skill", r.URI)
					}
				}
				if page.NextCursor == "" {
					break
				}
				cursor = &page.NextCursor
			}
			skills := 0
			cursor = nil
			for {
				params := map[string]any{}
				if cursor != nil {
					params["cursor"] = *cursor
				}
				var page struct {
					Skills     []testSkillEntry
					NextCursor string
				}
				mustRPC(t, s, sess, methodSkillsList, params, &page)
				for _, sk := range page.Skills {
					skills++
					md := readText(t, s, sess, sk.URI)
					slug := strings.TrimSuffix(strings.TrimPrefix(sk.URI, schemeSkill), "/"+fileSkillMD)
					if name, _ := sk.Frontmatter["name"].(string); name != slug {
						t.Errorf("%s: frontmatter name %q, want the last path segment %q", sk.URI, name, slug)
					}
					if got := readText(t, s, sess, schemeSkill+slug); got != md {
						t.Errorf("%s: the alias skill://%s does not read as its SKILL.md", sk.URI, slug)
					}
					if _, ok := listed[schemeSkill+slug]; ok {
						t.Errorf("the alias skill://%s is listed", slug)
					}
					if n, ok := listed[sk.URI]; !ok || n != int64(len(md)) {
						t.Errorf("%s: listed size %d (listed %v), read %d bytes", sk.URI, n, ok, len(md))
					}
					var man struct {
						Skill string
						Files []struct {
							Path string
							Size int
							Hash string
						}
					}
					if err := json.Unmarshal([]byte(readText(t, s, sess, schemeSkill+slug+"/_manifest")), &man); err != nil {
						t.Fatal(err)
					}
					if man.Skill != slug || len(man.Files) != len(sk.Resources) {
						t.Errorf("%s: manifest %+v does not match skills/list's %d files", sk.URI, man, len(sk.Resources))
					}
					for k, r := range sk.Resources {
						text := readText(t, s, sess, r.URI)
						if digest(text) != r.Digest || len(text) != r.Size {
							t.Errorf("%s: listed %s %d bytes, read %s %d bytes", r.URI, r.Digest, r.Size, digest(text), len(text))
						}
						if k < len(man.Files) && (schemeSkill+slug+"/"+man.Files[k].Path != r.URI || man.Files[k].Hash != r.Digest || man.Files[k].Size != r.Size) {
							t.Errorf("%s: manifest entry %+v disagrees with skills/list", r.URI, man.Files[k])
						}
					}
					var got struct{ Skill testSkillEntry }
					mustRPC(t, s, sess, methodSkillsGet, map[string]any{"uri": sk.URI}, &got)
					if !reflect.DeepEqual(got.Skill, sk) {
						t.Errorf("%s: skills/get %+v differs from skills/list %+v", sk.URI, got.Skill, sk)
					}
				}
				if page.NextCursor == "" {
					break
				}
				cursor = &page.NextCursor
			}
			if skills != len(a.Skills()) {
				t.Errorf("skills/list gave %d skills, the agent has %d", skills, len(a.Skills()))
			}
		})
	}
}

// TestSkillURIsNeverPaths: URIs are looked up by key; anything that is not
// a served shape is unknown, whatever it spells.
func TestSkillURIsNeverPaths(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	sess := newSession(nil)
	for _, uri := range []string{
		"skill://commit/../commit/SKILL.md", "skill://commit/./SKILL.md", "skill://commit//SKILL.md",
		"skill://../etc/passwd", "skill://commit/references/..%2fSKILL.md", "skill://commit/", "skill://COMMIT/SKILL.md",
		"skill://commit/SKILL.md?x=1", "skill://commit\\SKILL.md", "file:///etc/passwd", "skill://", "skill://commit/references/nope.md",
		"skill://" + strings.Repeat("a", 65) + "/SKILL.md", "skill://commit/SKILL.md\x00",
	} {
		_, err := rpc(t, s, sess, methodResourcesRead, map[string]any{"uri": uri})
		we, ok := err.(*wireError)
		if !ok || we.Code != codeResourceNotFound {
			t.Errorf("read %q: %v, want -32002", uri, err)
		}
	}
}

// TestPromptXMLListedOnlyWhenReadable: an <available_skills> block that
// would pass the answer bound is not listed (a client following the list
// could not read it), and reading it says why.
func TestPromptXMLListedOnlyWhenReadable(t *testing.T) {
	a := openSynth(t, 300)
	for _, tt := range []struct {
		bound  int
		listed bool
	}{{DefaultMaxAnswerBytes, true}, {2000, false}} {
		s := newServer(&Options{Source: Loaded(a), MaxAnswerBytes: tt.bound})
		sess := newSession(nil)
		b, err := rpc(t, s, sess, methodResourcesList, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), uriPromptXML); got != tt.listed {
			t.Errorf("bound %d: prompt-xml listed %v, want %v", tt.bound, got, tt.listed)
		}
		_, err = rpc(t, s, sess, methodResourcesRead, map[string]any{"uri": uriPromptXML})
		if (err == nil) != tt.listed || (err != nil && !strings.Contains(err.Error(), "--max-answer-bytes")) {
			t.Errorf("bound %d: reading prompt-xml: %v", tt.bound, err)
		}
	}
}

// TestReadAnswersCachedPerVersion: a resources/read answer is encoded once
// per version and reused byte for byte; a reload's version reads anew.
func TestReadAnswersCachedPerVersion(t *testing.T) {
	r := startReloadRig(t)
	defer r.finish()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://beta/SKILL.md"}}`)
	first := r.collect(`Beta body of version 1`)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://beta/SKILL.md"}}`)
	again := r.collect(`Beta body of version 1`)
	if first[len(first)-1] != again[len(again)-1] {
		t.Errorf("the same read answered differently:\n%s\n%s", first[len(first)-1], again[len(again)-1])
	}
	writeByRename(t, r.path, agentText(2))
	r.changes <- struct{}{}
	deadline := time.Now().Add(10 * time.Second)
	for id := 2; ; id++ {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"skill://beta/SKILL.md"}}`, id))
		got := r.collect(fmt.Sprintf(`"id":%d`, id))
		if strings.Contains(got[len(got)-1], "Beta body of version 2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a cached read outlived its version: %s", got[len(got)-1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPromptArgumentsMustBeStrings: prompts/get arguments are strings, and
// the error says so rather than only "an object".
func TestPromptArgumentsMustBeStrings(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	_, err := rpc(t, s, newSession(nil), methodPromptsGet, map[string]any{"name": "commit", "arguments": map[string]any{"message": 5}})
	if err == nil || !strings.Contains(err.Error(), "params.arguments must be an object of string values") {
		t.Errorf("prompts/get with a number argument: %v", err)
	}
}
