package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// words is the request vocabulary: the generator's verbs and nouns, cut to
// those an agent of a given size actually has skills for.
type words struct {
	Verbs []string `json:"verbs"`
	Nouns []string `json:"nouns"`
}

// loadWords reads VERBS and NOUNS from the generator itself, so requests
// follow its word lists without a copy here that could drift.
func loadWords(gen string) (words, error) {
	const script = `import importlib.util as u, json, sys
spec = u.spec_from_file_location("gen_agent", sys.argv[1])
m = u.module_from_spec(spec)
spec.loader.exec_module(m)
print(json.dumps({"verbs": list(m.VERBS), "nouns": list(m.NOUNS)}))`
	out, err := exec.Command("python3", "-c", script, gen).Output()
	if err != nil {
		return words{}, fmt.Errorf("reading the word lists from %s with python3: %w%s", gen, err, exitStderr(err))
	}
	var w words
	if err := json.Unmarshal(out, &w); err != nil {
		return words{}, fmt.Errorf("word lists from %s: %w", gen, err)
	}
	if len(w.Verbs) == 0 || len(w.Nouns) == 0 {
		return words{}, fmt.Errorf("%s has empty VERBS or NOUNS", gen)
	}
	return w, nil
}

// forSize keeps the verbs and nouns that the first n generated skills use:
// skill i is named after VERBS[i mod len(VERBS)] and
// NOUNS[i div len(VERBS) mod len(NOUNS)].
func (w words) forSize(n int) words {
	nv := min(n, len(w.Verbs))
	nn := min((n+len(w.Verbs)-1)/len(w.Verbs), len(w.Nouns))
	return words{Verbs: w.Verbs[:max(nv, 1)], Nouns: w.Nouns[:max(nn, 1)]}
}

// text is the k-th request, walking the verb × noun grid with a stride
// coprime to typical grid sizes so that neighbours differ in both words.
func (w words) text(k int) string {
	grid := len(w.Verbs) * len(w.Nouns)
	i := (k * 7919) % grid
	return "please " + w.Verbs[i%len(w.Verbs)] + " the latest " + w.Nouns[i/len(w.Verbs)] + " for the team"
}

// skillName names the k-th skill a request asks for by name, among the
// first n the generator writes: skill i is VERBS[i mod len(VERBS)] + "-" +
// NOUNS[i div len(VERBS)] while i < len(VERBS) × len(NOUNS), and w must be
// the vocabulary forSize(n) returned.
func (w words) skillName(k, n int) string {
	limit := min(n, len(w.Verbs)*len(w.Nouns))
	i := (k * 7919) % limit
	return w.Verbs[i%len(w.Verbs)] + "-" + w.Nouns[i/len(w.Verbs)]
}

// ensureAgent writes dir/agent-N.3md with the generator unless it exists,
// and returns its path and size in MB.
func ensureAgent(gen, dir string, n int) (string, float64, error) {
	path := filepath.Join(dir, fmt.Sprintf("agent-%d.3md", n))
	if _, err := os.Stat(path); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", 0, fmt.Errorf("creating %s: %w", dir, err)
		}
		tmp := path + ".tmp"
		if out, err := exec.Command("python3", gen, fmt.Sprint(n), tmp).CombinedOutput(); err != nil {
			os.Remove(tmp)
			return "", 0, fmt.Errorf("python3 %s %d %s: %w\n%s", gen, n, tmp, err, out)
		}
		if err := os.Rename(tmp, path); err != nil {
			return "", 0, fmt.Errorf("moving the generated agent into place: %w", err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, fmt.Errorf("generated agent: %w", err)
	}
	return path, float64(st.Size()) / (1 << 20), nil
}

// exitStderr formats the stderr an exec.ExitError captured.
func exitStderr(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return "\n" + strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}
