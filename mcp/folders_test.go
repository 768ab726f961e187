package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/synth"

	"github.com/agent3md/agent3md/loader"
)

// folderPNG is a binary asset added at test time (no binary is committed).
var folderPNG = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 0xff, 0xfe}

// openFolderAgent serves a copy of the loader's skill-folder fixture
// (../loader/testdata/folders) with lint/assets/logo.png and files whose
// names need escaping in a URI added.
func openFolderAgent(t *testing.T) (*loader.Agent, string) {
	t.Helper()
	dst := synth.CopyDir(t, "../loader/testdata/folders")
	err := os.MkdirAll(filepath.Join(dst, "lint", "assets"), 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dst, "lint", "assets", "logo.png"), folderPNG, 0o644)
	}
	// File names a URI must escape: served under escaped URIs, read back.
	for _, name := range []string{"my notes.md", "50% off.txt", "a#b?c.txt"} {
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, "lint", "assets", name), []byte("awkward name: "+name+"\n"), 0o644)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	a, err := loader.OpenFolders(context.Background(), []string{dst}, &loader.FolderOptions{NoRescan: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, dst
}

type folderContent struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     *string `json:"blob"`
}

// readBytes reads a resource and returns its bytes, whether it came as a
// blob, and its MIME type.
func readBytes(t *testing.T, s *server, sess *session, uri string) ([]byte, bool, string) {
	t.Helper()
	var r struct{ Contents []folderContent }
	mustRPC(t, s, sess, methodResourcesRead, map[string]any{"uri": uri}, &r)
	if len(r.Contents) != 1 {
		t.Fatalf("%s: %d contents", uri, len(r.Contents))
	}
	c := r.Contents[0]
	switch {
	case c.Text != nil && c.Blob == nil:
		return []byte(*c.Text), false, c.MimeType
	case c.Blob != nil && c.Text == nil:
		b, err := base64.StdEncoding.DecodeString(*c.Blob)
		if err != nil {
			t.Fatalf("%s: blob is not base64: %v", uri, err)
		}
		return b, true, c.MimeType
	}
	t.Fatalf("%s: want exactly one of text and blob: %+v", uri, c)
	return nil, false, ""
}

// TestFolderDigestsMatchReads: every file skills/list names for a folder
// agent reads back (as text, or as a base64 blob when binary) with the
// listed digest and size, byte for byte what is on disk; the _manifest
// agrees; resources/list lists each SKILL.md with its size.
func TestFolderDigestsMatchReads(t *testing.T) {
	a, dir := openFolderAgent(t)
	s := newServer(&Options{Source: Loaded(a)})
	sess := newSession(nil)
	var list struct {
		Resources []struct {
			URI, MimeType string
			Size          *int64
		}
	}
	mustRPC(t, s, sess, methodResourcesList, nil, &list)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range []string{"skill://build/SKILL.md", "skill://deploy/_manifest", "skill://rules/SKILL.md", uriIdentity} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %q", want, uris)
		}
	}
	var page struct{ Skills []testSkillEntry }
	mustRPC(t, s, sess, methodSkillsList, nil, &page)
	if len(page.Skills) != 4 {
		t.Fatalf("skills/list: %d skills", len(page.Skills))
	}
	onDisk := map[string]string{"build": "build", "deploy": "deploy", "lint": "lint", "rules": "lint/rules"}
	read := 0
	for _, sk := range page.Skills {
		slug, _, _ := splitSkillURI(sk.URI)
		if sk.Frontmatter["name"] != slug {
			t.Errorf("%s: frontmatter %v", sk.URI, sk.Frontmatter)
		}
		var manifest struct {
			Files []struct {
				Path string
				Size int
				Hash string
			}
		}
		mb, _, _ := readBytes(t, s, sess, "skill://"+slug+"/_manifest")
		if err := json.Unmarshal(mb, &manifest); err != nil {
			t.Fatal(err)
		}
		if len(manifest.Files) != len(sk.Resources) {
			t.Errorf("%s: manifest has %d files, skills/list %d", slug, len(manifest.Files), len(sk.Resources))
		}
		for k, r := range sk.Resources {
			data, blob, mime := readBytes(t, s, sess, r.URI)
			_, path, _ := splitSkillURI(r.URI)
			want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(onDisk[slug]), filepath.FromSlash(path)))
			if err != nil || !bytes.Equal(data, want) {
				t.Errorf("%s: read bytes differ from the file (%v)", r.URI, err)
			}
			if digest(string(data)) != r.Digest || len(data) != r.Size {
				t.Errorf("%s: listed %s/%d, read %s/%d", r.URI, r.Digest, r.Size, digest(string(data)), len(data))
			}
			if k < len(manifest.Files) && (manifest.Files[k].Hash != r.Digest || manifest.Files[k].Path != path) {
				t.Errorf("%s: manifest says %+v", r.URI, manifest.Files[k])
			}
			if path == "assets/logo.png" && (!blob || mime != "image/png") {
				t.Errorf("%s: blob %v mime %s, want a base64 image/png blob", r.URI, blob, mime)
			}
			if path != "assets/logo.png" && blob {
				t.Errorf("%s: text file served as a blob", r.URI)
			}
			read++
		}
	}
	if read < 7 {
		t.Errorf("only %d files read", read)
	}
	escaped := false
	for _, sk := range page.Skills {
		for _, r := range sk.Resources {
			escaped = escaped || r.URI == "skill://lint/assets/my%20notes.md" || r.URI == "skill://lint/assets/a%23b%3Fc.txt"
		}
	}
	if !escaped {
		t.Error("no file name that needs escaping was listed under an escaped URI")
	}
}

func TestFolderDirectoryRead(t *testing.T) {
	a, _ := openFolderAgent(t)
	s := newServer(&Options{Source: Loaded(a)})
	sess := newSession(nil)
	tests := []struct {
		uri   string
		names []string
		dirs  []string
	}{
		{"skill://lint", []string{"SKILL.md", "assets", "rules"}, []string{"assets", "rules"}},
		{"skill://lint/assets", []string{"50% off.txt", "a#b?c.txt", "logo.png", "my notes.md"}, nil},
		{"skill://lint/rules", []string{"SKILL.md"}, nil},
		{"skill://deploy", []string{"SKILL.md", "references"}, []string{"references"}},
		{"skill://build/scripts", []string{"build.sh"}, nil},
	}
	for _, tc := range tests {
		var res struct {
			Resources []struct{ URI, Name, MimeType string }
		}
		mustRPC(t, s, sess, methodDirectoryRead, map[string]any{"uri": tc.uri}, &res)
		var names, dirs []string
		for _, r := range res.Resources {
			names = append(names, r.Name)
			if r.MimeType == mimeDirectory {
				dirs = append(dirs, r.Name)
			}
		}
		if !slices.Equal(names, tc.names) || !slices.Equal(dirs, tc.dirs) {
			t.Errorf("%s: %q (dirs %q), want %q (dirs %q)", tc.uri, names, dirs, tc.names, tc.dirs)
		}
	}
	for _, uri := range []string{"skill://lint/SKILL.md", "skill://lint/nope", "skill://nope", "skill://lint/../deploy"} {
		if _, err := rpc(t, s, sess, methodDirectoryRead, map[string]any{"uri": uri}); err == nil {
			t.Errorf("%s: listed as a directory", uri)
		}
	}
}

// TestFolderUnservedPaths: a path no listing produces is the era's
// unknown-resource error, never a read outside the skill.
func TestFolderUnservedPaths(t *testing.T) {
	a, _ := openFolderAgent(t)
	s := newServer(&Options{Source: Loaded(a)})
	sess := newSession(nil)
	for _, uri := range []string{
		"skill://deploy/missing.md", "skill://deploy/../build/SKILL.md", "skill://deploy/references",
		"skill://deploy//etc/passwd", "skill://nope/SKILL.md",
	} {
		_, err := rpc(t, s, sess, methodResourcesRead, map[string]any{"uri": uri})
		var we *wireError
		if !errors.As(err, &we) || we.Code != codeResourceNotFound {
			t.Errorf("%s: %v, want the unknown-resource error", uri, err)
		}
	}
	// The alias skill://<name> reads as the SKILL.md, the file as on disk.
	data, blob, mime := readBytes(t, s, sess, "skill://deploy")
	if blob || mime != mimeMarkdown || !bytes.HasPrefix(data, []byte("---\nname: deploy\n")) {
		t.Errorf("skill://deploy: %q %v %s", data, blob, mime)
	}
}

// TestFolderReload: a served folder that changes (an asset rewritten, a
// skill added) is reloaded whole on a change signal: subscribers of the
// changed file hear resources/updated, every session list_changed, and
// the new skill routes and reads.
func TestFolderReload(t *testing.T) {
	_, dir := openFolderAgent(t)
	changes := make(chan struct{}, 1)
	open := func(ctx context.Context) (*loader.Agent, error) {
		return loader.OpenFolders(ctx, []string{dir}, &loader.FolderOptions{NoRescan: true})
	}
	r := &reloadRig{changes: changes, logs: &syncBuffer{}}
	r.harness = serveHarness(t, &Options{Source: changing(open, changes)})
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	r.collect(`"listChanged":true,"subscribe":true`)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"skill://lint/assets/logo.png"}}`)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"skill://build/SKILL.md"}}`)
	r.collect(`"id":1,"result":{}`, `"id":2,"result":{}`)

	if err := os.WriteFile(filepath.Join(dir, "lint", "assets", "logo.png"), append(folderPNG, 7), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "gamma"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gamma", "SKILL.md"), []byte("---\nname: gamma\ndescription: Gamma rays. Use for gamma tasks.\n---\nGamma body.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes <- struct{}{}
	got := r.collect(methodResChanged, `"method":"notifications/resources/updated","params":{"uri":"skill://lint/assets/logo.png"}`)
	for _, l := range got {
		if strings.Contains(l, "skill://build/SKILL.md") {
			t.Errorf("an unchanged file was announced: %s", l)
		}
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"gamma rays"}}}`)
	r.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"gamma"}}}`)
	r.collect(`"id":3,"result":{"content":[{"type":"text","text":"gamma`, `Gamma body.`)
	r.finish()
}

// TestFolderListsSurviveAStaleSkill: a file of one skill changed after a
// pinned folder agent was loaded (a chmod +x, a touch) leaves that skill
// out of skills/list and resources/list until the reload, instead of
// failing both lists for every skill.
func TestFolderListsSurviveAStaleSkill(t *testing.T) {
	a, dir := openFolderAgent(t)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "build", "SKILL.md"), later, later); err != nil {
		t.Fatal(err)
	}
	s := newServer(&Options{Source: Loaded(a)})
	sess := newSession(nil)
	var page struct{ Skills []testSkillEntry }
	mustRPC(t, s, sess, methodSkillsList, nil, &page)
	var got []string
	for _, sk := range page.Skills {
		got = append(got, sk.URI)
	}
	if slices.Contains(got, "skill://build/SKILL.md") || !slices.Contains(got, "skill://deploy/SKILL.md") || len(got) != 3 {
		t.Errorf("skills/list = %q, want every skill but build", got)
	}
	var list struct{ Resources []struct{ URI string } }
	mustRPC(t, s, sess, methodResourcesList, nil, &list)
	got = got[:0]
	for _, r := range list.Resources {
		got = append(got, r.URI)
	}
	if slices.Contains(got, "skill://build/SKILL.md") || !slices.Contains(got, "skill://deploy/SKILL.md") {
		t.Errorf("resources/list = %q, want every skill but build", got)
	}
}

// TestPromptXMLWellFormed: a description holding a NUL or an escape (YAML
// "\u0000", "\e") would make the <available_skills> block ill-formed XML,
// which XML 1.0 cannot hold even as a reference; it is replaced.
func TestPromptXMLWellFormed(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "odd"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: odd\ndescription: \"Odd \\u0000 skill \\e[2J </description> & more\"\n---\nBody.\n"
	if err := os.WriteFile(filepath.Join(dir, "odd", "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := loader.OpenFolders(context.Background(), []string{dir}, &loader.FolderOptions{NoRescan: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	s := newServer(&Options{Source: Loaded(a)})
	b, _, _ := readBytes(t, s, newSession(nil), uriPromptXML)
	var doc struct {
		Skills []struct {
			Name        string `xml:"name"`
			Description string `xml:"description"`
		} `xml:"skill"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not well-formed XML: %v\n%q", err, b)
	}
	if len(doc.Skills) != 1 || doc.Skills[0].Description != "Odd \uFFFD skill \uFFFD[2J </description> & more" {
		t.Errorf("skills %+v", doc.Skills)
	}
}
