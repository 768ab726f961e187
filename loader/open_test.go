package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/filekind"
	"unicode/utf8"
)

func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.3md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Logf("mkfifo: %v (skipping the named-pipe case)", err)
		fifo = ""
	}
	tests := []struct {
		name, path string
	}{
		{"directory", dir},
		{"named pipe", fifo},
		{"device", os.DevNull},
	}
	// One refusal everywhere: the error is filekind's, and its words name
	// the kind as filekind.Of does.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "" {
				t.Skip("not available here")
			}
			a, err := Open(tt.path, nil)
			if err == nil {
				a.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, ErrNotRegular) || !errors.Is(err, filekind.ErrNotRegular) {
				t.Fatalf("err = %v, want ErrNotRegular (filekind's)", err)
			}
			if !strings.Contains(err.Error(), " is a "+tt.name+": ") {
				t.Errorf("err = %v, want it to say the path is a %s", err, tt.name)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		_, err := Open(filepath.Join(t.TempDir(), "nope.3md"), nil)
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v, want ErrNotExist", err)
		}
	})
	t.Run("parse error keeps its position and file", func(t *testing.T) {
		p := writeAgent(t, "---\n3md: 1.0\n---\n@plane label=x\nbody\n")
		_, err := Open(p, nil)
		var pe *agentfile.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("err = %v, want *agentfile.ParseError", err)
		}
		if pe.Name != agentfile.MissingPlanePosition || pe.Line != 4 || pe.File != p {
			t.Fatalf("got %s line %d file %q", pe.Name, pe.Line, pe.File)
		}
	})
	t.Run("limit from options", func(t *testing.T) {
		p := writeAgent(t, head+"@plane z=1 label=a triggers=a\n"+string(make([]byte, 0))+"a long line of body text\n")
		_, err := Open(p, &Options{Parse: agentfile.Options{Limits: agentfile.Limits{MaxLineBytes: 10}}})
		if !errors.Is(err, agentfile.ErrLimit) {
			t.Fatalf("err = %v, want ErrLimit", err)
		}
	})
}

func TestCloseIsIdempotent(t *testing.T) {
	a, err := Open(vector("valid-minimal.3md"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := a.Body(bg, "echo"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Body after Close: %v, want ErrClosed", err)
	}
	// The catalog stays readable: it needs no file.
	if got := a.Skills(); len(got) != 1 {
		t.Fatalf("Skills after Close: %d", len(got))
	}
}

func TestManifestAndSkills(t *testing.T) {
	a := openPath(t, vector("valid-typed-inputs.3md"))
	m, err := a.Manifest(bg)
	if err != nil {
		t.Fatal(err)
	}
	want := &Manifest{
		Name:     "typed",
		Model:    "unknown",
		Tools:    []string{"db"},
		Identity: "# typed\nIdentity. No model line: model is an optional hint, not required.",
		Skills: []SkillInfo{{
			Name:        "query",
			Z:           1,
			Description: m.Skills[0].Description,
			Triggers:    []string{"ask", "lookup"},
			Inputs:      []agentfile.Input{{Name: "question", Type: "string"}, {Name: "limit", Type: "number", Optional: true}},
			Tool:        "db query {question} --limit {limit}",
			Deps:        []string{},
			Slug:        "query",
		}},
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("Manifest:\n got %+v\nwant %+v", m, want)
	}
	if m.Skills[0].Description == "" {
		t.Error("skill description is empty")
	}
	if a.Path() != vector("valid-typed-inputs.3md") || a.Info().Name != "typed" || a.Catalog() == nil {
		t.Error("accessors disagree with the file")
	}
}

func TestSkillInfoDeps(t *testing.T) {
	a := openText(t, head+
		"@plane z=1 label=a\nsee [[z=2]], [[z=3|c]], again [[z=2]], the identity [[z=0]], a ghost [[z=9]], decimal [[z=3.0]]\n\n"+
		"@plane z=2 label=b\nb\n\n@plane z=3 label=c\nc\n")
	got := a.Skills()[0].Deps
	if want := []string{"b", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Deps = %q, want %q", got, want)
	}
}

func TestLookups(t *testing.T) {
	a := openPath(t, vector("valid-deps.3md"))
	skills := a.Info().Skills
	if len(skills) < 2 {
		t.Fatalf("vector has %d skills", len(skills))
	}
	for _, s := range skills {
		got, err := a.SkillByZ(s.Z)
		if err != nil || got.Z != s.Z {
			t.Fatalf("SkillByZ(%v) = %v, %v", s.Z, got, err)
		}
		slug, err := a.Slug(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.SkillBySlug(slug); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range skills {
		got, err := a.Skill(s.Name)
		if err != nil || got.Z != s.Z {
			t.Fatalf("Skill(%q) = %+v, %v; want z=%v", s.Name, got, err, s.Z)
		}
	}
	var u *UnknownSkillError
	if _, err := a.SkillByZ(a.Info().Skills[0].Z - 1); !errors.As(err, &u) {
		t.Fatalf("SkillByZ(identity) = %v, want UnknownSkillError", err)
	}
}

func TestUnknownSkillEverywhere(t *testing.T) {
	a := openPath(t, vector("valid-cost.3md"))
	calls := map[string]func() error{
		"Skill":         func() error { _, err := a.Skill("serach"); return err },
		"Body":          func() error { _, err := a.Body(bg, "serach"); return err },
		"Slug":          func() error { _, err := a.Slug("serach"); return err },
		"SkillMD":       func() error { _, err := a.SkillMD(bg, "serach"); return err },
		"Resolve":       func() error { _, err := a.Resolve(bg, "serach"); return err },
		"Command":       func() error { _, err := a.Command("serach", nil); return err },
		"SkillBySlug":   func() error { _, err := a.SkillBySlug("serach"); return err },
		"SkillMDBySlug": func() error { _, err := a.SkillMDBySlug(bg, "serach"); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var u *UnknownSkillError
			if err := call(); !errors.As(err, &u) {
				t.Fatalf("err = %v, want *UnknownSkillError", err)
			}
			if u.Name != "serach" || len(u.Closest) == 0 || u.Closest[0] != "search" {
				t.Fatalf("got %+v, want closest search first", u)
			}
			if u.Error() != "unknown skill: serach (closest: search)" {
				t.Fatalf("Error() = %q", u.Error())
			}
		})
	}
}

func TestDocumentsWithoutSkills(t *testing.T) {
	tests := []struct {
		name, text, identity string
	}{
		{"no planes", "---\n3md: 1.0\ntitle: Empty\n---\n", ""},
		{"implicit plane", "---\n3md: 1.0\ntitle: One\n---\n\nJust one plane.\r\n\n", "Just one plane."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openText(t, tt.text)
			m, err := a.Manifest(bg)
			if err != nil {
				t.Fatal(err)
			}
			if m.Identity != tt.identity || len(m.Skills) != 0 || m.Skills == nil || m.Tools == nil {
				t.Fatalf("Manifest = %+v", m)
			}
		})
	}
}

func TestCanceledContext(t *testing.T) {
	a := openPath(t, vector("valid-deps.3md"))
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := a.Resolve(ctx, "answer"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Resolve: %v, want context.Canceled", err)
	}
	if _, err := a.SkillMD(ctx, "answer"); !errors.Is(err, context.Canceled) {
		t.Fatalf("SkillMD: %v, want context.Canceled", err)
	}
}

// TestOpenRefusesNameClash: an agent in which two skills answer to one
// name is never opened (so no command serves it), with an error naming
// both lines; the validator still reports the same file as unique-skill.
// A skill without a label is named skill-<z>, so a label equal to that
// name clashes too.
func TestOpenRefusesNameClash(t *testing.T) {
	for _, tt := range []struct {
		name, text   string
		line1, line2 int
		mention      string
	}{
		{"two labels", head + "@plane z=1 label=dup triggers=a\nA\n\n@plane z=2 label=dup triggers=b\nB\n", 11, 14, `"dup"`},
		{"label equals a fallback name", head + "@plane z=1 triggers=a\nA\n\n@plane z=2 label=skill-1 triggers=b\nB\n", 11, 14, "has no label"},
		{"fallback name after the label", head + "@plane z=2 label=skill-3 triggers=a\nA\n\n@plane z=3 triggers=b\nB\n", 11, 14, "line 14 has no label"},
		{"the conformance vector", "", 10, 14, `"dup"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := vector("invalid-dup-skill.3md")
			if tt.text != "" {
				path = writeAgent(t, tt.text)
			}
			// The second cached open decodes the catalog the first one
			// stored: the refusal must not depend on where it came from.
			cache := &Options{CatalogCache: t.TempDir()}
			for _, opts := range []*Options{cache, cache} {
				if a, err := Open(path, opts); !errors.Is(err, agentfile.ErrDuplicateSkill) {
					if err == nil {
						a.Close()
					}
					t.Fatalf("cached Open: err = %v, want ErrDuplicateSkill", err)
				}
			}
			a, err := Open(path, nil)
			if err == nil {
				a.Close()
				t.Fatal("Open served an agent with two skills of one name")
			}
			var pe *agentfile.ParseError
			if !errors.As(err, &pe) || pe.Name != agentfile.DuplicateSkill || !errors.Is(err, agentfile.ErrDuplicateSkill) {
				t.Fatalf("err = %v, want a DuplicateSkill *ParseError", err)
			}
			msg := err.Error()
			for _, want := range []string{path, fmt.Sprintf("lines %d and %d", tt.line1, tt.line2), tt.mention} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
			if pe.Line != tt.line2 {
				t.Errorf("error on line %d, want %d", pe.Line, tt.line2)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cat, err := agentfile.Parse(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, fd := range agentfile.Validate(cat).Errors {
				rules = append(rules, fd.Rule)
			}
			if !slices.Contains(rules, agentfile.RuleUniqueSkill) {
				t.Errorf("validate reports %v, want unique-skill among them", rules)
			}
		})
	}
}

// TestOpenRefusesInvalidUTF8Name: a label that is not valid UTF-8 would be
// listed with replacement characters and could never be fetched by the
// name a client sees, so no command opens such an agent; the error names
// the skill's line, and the validator reports the label as name-utf8.
func TestOpenRefusesInvalidUTF8Name(t *testing.T) {
	path := writeAgent(t, head+"@plane z=1 label=ok triggers=a\nA\n\n@plane z=2 label=\"b\xff\xfe\" triggers=b\nB\n")
	a, err := Open(path, nil)
	if err == nil {
		a.Close()
		t.Fatal("Open served an agent with a name that is not UTF-8")
	}
	var pe *agentfile.ParseError
	if !errors.As(err, &pe) || pe.Name != agentfile.InvalidSkillName || !errors.Is(err, agentfile.ErrInvalidSkillName) || pe.Line != 14 {
		t.Fatalf("err = %v, want an InvalidSkillName *ParseError on line 14", err)
	}
	if msg := err.Error(); !utf8.ValidString(msg) || !strings.Contains(msg, path) {
		t.Errorf("error %q should be valid UTF-8 and name the file", msg)
	}
}

// TestSkillCountBuildsNoCatalog: SkillCount is len(Skills()) without
// building the body-less catalog, which a server counting its skills while
// its routing index builds would otherwise hold through the build.
func TestSkillCountBuildsNoCatalog(t *testing.T) {
	a := openPath(t, vector("valid-typed-inputs.3md"))
	if n := a.SkillCount(); n != len(a.Info().Skills) || n != 1 {
		t.Fatalf("SkillCount = %d, want 1 (the file's one skill)", n)
	}
	if st := a.current(); st.skills != nil || st.slugs != nil {
		t.Fatal("SkillCount built the skill catalog or the slugs")
	}
	if n := len(a.Skills()); n != a.SkillCount() {
		t.Fatalf("len(Skills()) = %d, SkillCount = %d", n, a.SkillCount())
	}
}

// TestLookupEitherComposition: a skill name with an accent answers to the
// accent composed (é, one character) and decomposed (e and a combining
// accent), whichever the file and the client used; a name that differs
// in more than that is still unknown.
func TestLookupEitherComposition(t *testing.T) {
	const composed, decomposed = "caf\u00e9", "cafe\u0301"
	for _, tt := range []struct{ file, ask string }{
		{composed, decomposed},
		{decomposed, composed},
		{composed, composed},
	} {
		a := openPath(t, writeAgent(t, "---\n3md: 1.0\ntitle: Cafe\n---\n@plane z=0 label=\"cafe-agent\" kind=identity\nServes coffee.\n\n@plane z=1 label=\""+tt.file+"\" triggers=\"coffee\"\nBrew it.\n"))
		s, err := a.Skill(tt.ask)
		if err != nil || s.Name != tt.file {
			t.Errorf("file %+q, asked %+q: Skill = %+v, %v; want the skill named as the file writes it", tt.file, tt.ask, s, err)
		}
		if body, err := a.Body(bg, tt.ask); err != nil || body != "Brew it." {
			t.Errorf("file %+q, asked %+q: Body = %q, %v", tt.file, tt.ask, body, err)
		}
		if _, err := a.Skill("cafe"); !errors.As(err, new(*UnknownSkillError)) {
			t.Errorf("file %+q: Skill(\"cafe\") = %v, want UnknownSkillError", tt.file, err)
		}
	}
}

// TestOpenRefusesNFCClash: two skills whose names differ only in how an
// accent is encoded are one name, refused like an exact duplicate, with
// both lines and both encodings in the error, in either order.
func TestOpenRefusesNFCClash(t *testing.T) {
	const composed, decomposed = "caf\u00e9", "cafe\u0301"
	for _, pair := range [][2]string{{composed, decomposed}, {decomposed, composed}} {
		path := writeAgent(t, "---\n3md: 1.0\ntitle: Cafe\n---\n@plane z=0 label=\"cafe-agent\" kind=identity\nServes coffee.\n\n@plane z=1 label=\""+pair[0]+"\" triggers=\"coffee\"\nOne.\n\n@plane z=2 label=\""+pair[1]+"\" triggers=\"espresso\"\nTwo.\n")
		_, err := Open(path, nil)
		var pe *agentfile.ParseError
		if !errors.As(err, &pe) || pe.Name != agentfile.DuplicateSkill || !strings.Contains(err.Error(), "lines 8 and 11") || !strings.Contains(err.Error(), `caf\u00e9`) || !strings.Contains(err.Error(), `cafe\u0301`) {
			t.Errorf("%+q then %+q: Open = %v; want a DuplicateSkill error naming both lines and both encodings", pair[0], pair[1], err)
		}
	}
}
