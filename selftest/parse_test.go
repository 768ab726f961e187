package selftest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestRoutedNames(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    []routeMatch
		wantErr bool
	}{
		{name: "matches", text: "deploy  (score 2; matched: deploy app, ship)\nbuild  (score 1; matched: app)", want: []routeMatch{{"deploy", 2}, {"build", 1}}},
		{name: "no match", text: "no skill matched", want: nil},
		{name: "name with spaces", text: "ship it now  (score 1.5; matched: ship)", want: []routeMatch{{"ship it now", 1.5}}},
		{name: "crlf", text: "deploy  (score 1; matched: x)\r\n", want: []routeMatch{{"deploy", 1}}},
		{name: "score alone", text: "deploy  (score 3)", want: []routeMatch{{"deploy", 3}}},
		{name: "bad line", text: "deploy (score 1)", wantErr: true},
		{name: "no score", text: "deploy  (relevance 3)", wantErr: true},
		{name: "score not a number", text: "deploy  (score high; matched: x)", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := routedNames(tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("matches %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFillTemplate(t *testing.T) {
	tests := []struct {
		tool   string
		values map[string]string
		want   string
	}{
		{"rg {query} {path}", map[string]string{"query": "it's", "path": "/tmp"}, `rg 'it'\''s' '/tmp'`},
		{"rg {query} {path}", map[string]string{"query": "x"}, `rg 'x' {path}`},
		{"echo {9bad} {a_1}", map[string]string{"9bad": "n", "a_1": ""}, `echo {9bad} ''`},
		{"no placeholders", map[string]string{"a": "b"}, "no placeholders"},
	}
	for _, tt := range tests {
		if got := fillTemplate(tt.tool, tt.values); got != tt.want {
			t.Errorf("fillTemplate(%q) = %q, want %q", tt.tool, got, tt.want)
		}
	}
}

func TestJSONCommand(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"skill":"x","command":"rg 'it'\\''s'","ready":true}`, `rg 'it'\''s'`},
		{`rg 'x'`, ""},
		{`{"missing":["a"]}`, ""},
	}
	for _, tt := range tests {
		if got := jsonCommand(tt.text); got != tt.want {
			t.Errorf("jsonCommand(%s) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestParseSkillCatalog(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    []string
		wantErr string
	}{
		{name: "array", text: `[{"name":"x","z":1,"triggers":["t"],"cost":null,"tool":null,"inputs":[{"name":"p","type":"string","required":true}],"deps":[]},{"name":"y","z":2.5,"triggers":[],"cost":"net","tool":"rg {p}"}]`, want: []string{"x", "y"}},
		{name: "empty", text: " [] ", want: []string{}},
		{name: "old object shape", text: `{"agent":"a","skills":[]}`, wantErr: "top-level JSON array"},
		{name: "other object", text: `{"agent":"a"}`, wantErr: "not a JSON array"},
		{name: "not JSON", text: `skills: x`, wantErr: "not a JSON array"},
		{name: "entry not an object", text: `[1]`, wantErr: "not an object"},
		{name: "no name key", text: `[{"z":1,"triggers":[]}]`, wantErr: `lacks "name"`},
		{name: "no z key", text: `[{"name":"x","triggers":[]}]`, wantErr: `lacks "z"`},
		{name: "no triggers key", text: `[{"name":"x","z":1}]`, wantErr: `lacks "triggers"`},
		{name: "empty name", text: `[{"name":"","z":1,"triggers":[]}]`, wantErr: "no name"},
		{name: "null z", text: `[{"name":"x","z":null,"triggers":[]}]`, wantErr: "no numeric z"},
		{name: "duplicate", text: `[{"name":"x","z":1,"triggers":[]},{"name":"x","z":2,"triggers":[]}]`, wantErr: "twice"},
		{name: "bad input type", text: `[{"name":"x","z":1,"triggers":[],"inputs":[{"name":"p","type":"int"}]}]`, wantErr: `type "int"`},
		{name: "wrong field type", text: `[{"name":"x","z":1,"triggers":"t"}]`, wantErr: "entry #1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skills, err := parseSkillCatalog(tt.text)
			if err == nil {
				err = validateSkills(skills)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range skills {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tt.want) && !(len(names) == 0 && len(tt.want) == 0) {
				t.Errorf("names %q, want %q", names, tt.want)
			}
		})
	}
}

func TestInputRequired(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		in   inputInfo
		want bool
	}{
		{inputInfo{Name: "a"}, true},
		{inputInfo{Name: "a", Required: &no}, false},
		{inputInfo{Name: "a", Optional: &yes}, false},
		{inputInfo{Name: "a", Optional: &no}, true},
	}
	for _, tt := range tests {
		if got := tt.in.required(); got != tt.want {
			t.Errorf("%+v required() = %v", tt.in, got)
		}
	}
}

func TestEachSkillSample(t *testing.T) {
	skills := []skillInfo{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
	tests := []struct {
		sample      int
		wantVisited []string
		wantNote    bool
	}{
		{sample: 4, wantVisited: []string{"a", "b", "c", "d"}},
		{sample: 9, wantVisited: []string{"a", "b", "c", "d"}},
		{sample: 2, wantVisited: []string{"a", "c"}, wantNote: true},
		{sample: 3, wantVisited: []string{"a", "b", "c"}, wantNote: true},
		{sample: 1, wantVisited: []string{"a"}, wantNote: true},
	}
	for _, tt := range tests {
		r := &runner{o: &Options{Sample: tt.sample}, skills: skills}
		var visited []string
		out := r.eachSkill("t", func(s skillInfo) (string, error) { visited = append(visited, s.Name); return "", nil })
		if !slices.Equal(visited, tt.wantVisited) || out.status != StatusPass {
			t.Errorf("Sample %d: visited %q (%s), want %q", tt.sample, visited, out.status, tt.wantVisited)
		}
		if strings.Contains(out.detail, "sample of") != tt.wantNote {
			t.Errorf("Sample %d: detail %q, sample note wanted: %v", tt.sample, out.detail, tt.wantNote)
		}
	}
}

func TestSampleIndicesSpread(t *testing.T) {
	idx := sampleIndices(100000, 32)
	if len(idx) != 32 || idx[0] != 0 || idx[31] < 96000 {
		t.Fatalf("sampleIndices(100000, 32) = %v, want 32 indices from 0 spread to the end", idx)
	}
	for i := 1; i < len(idx); i++ {
		if idx[i] <= idx[i-1] {
			t.Fatalf("indices not strictly increasing: %v", idx)
		}
	}
	if !slices.Equal(idx, sampleIndices(100000, 32)) {
		t.Fatal("sampleIndices is not deterministic")
	}
}

func TestOversizedLine(t *testing.T) {
	for _, n := range []int{DefaultMaxLineBytes, 100, 101} {
		b := oversizedLine(n)
		if len(b) != n {
			t.Errorf("oversizedLine(%d) is %d bytes", n, len(b))
		}
		if !json.Valid(b) {
			t.Errorf("oversizedLine(%d) is not JSON", n)
		}
	}
}

func FuzzServerOutput(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`,
		`[{"name":"x","z":1,"triggers":[],"inputs":[{"name":"p","type":"string"}]}]`,
		"deploy  (score 2; matched: a, b)\nno skill matched",
		`[{"name":"x","tool":"rg {q}"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		routedNames(s)
		if skills, err := parseSkillCatalog(s); err == nil && validateSkills(skills) == nil {
			for _, sk := range skills {
				if sk.Tool != nil {
					fillTemplate(*sk.Tool, map[string]string{"q": s})
				}
			}
		}
		expectProblem("x", s, func(string) (string, bool) { return "y" + s, true })
	})
}
