package cachedir

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Source names an agent a cache entry was made for: its file (or skill
// folders) and its display name. An entry is keyed by content, so several
// files with the same bytes share it; `agent3md cache size` lists them.
type Source struct {
	Path string // absolute agent file, or skill folders joined with ", "
	Name string // the agent's name
}

// maxSources bounds the agents one entry remembers (most recent first): a
// content shared by more files than this is rare, and the list is for
// people, not for eviction.
const maxSources = 8

// sourcePrefix names the file that records an entry's sources:
// source-<hash>. It is grouped under its hash, so pruning the entry
// removes it too.
const sourcePrefix = "source-"

// Record notes that the entry of hash serves src, most recent first.
// Failures are ignored: the record only labels `cache size`.
func Record(root, hash string, src Source) {
	if hash == "" || src.Path == "" || strings.ContainsAny(hash, `/\`) {
		return
	}
	path := filepath.Join(root, sourcePrefix+hash)
	list := []Source{clean(src)}
	for _, s := range readSources(path) {
		if s.Path != list[0].Path && len(list) < maxSources {
			list = append(list, s)
		}
	}
	var b bytes.Buffer
	for _, s := range list {
		b.WriteString(s.Path + "\t" + s.Name + "\n")
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return // unchanged: Touch keeps its time current
	}
	tmp, err := os.CreateTemp(root, ".source-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b.Bytes())
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// clean keeps a source on one line of the record: tabs and line breaks in
// a path or name would split it.
func clean(s Source) Source {
	r := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	return Source{Path: r.Replace(s.Path), Name: r.Replace(s.Name)}
}

// readSources reads a record; a missing or malformed one is empty.
func readSources(path string) []Source {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Source
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < maxSources {
		p, n, ok := strings.Cut(sc.Text(), "\t")
		if ok && p != "" {
			out = append(out, Source{Path: p, Name: n})
		}
	}
	return out
}
