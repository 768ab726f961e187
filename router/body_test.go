package router

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bodySkills are three skills whose triggers, names and descriptions
// share nothing with bodyRequest, while one body says its words.
func bodySkills() []Skill {
	return []Skill{
		{Name: "list-files", Z: 1, Triggers: []string{"list files", "ls"}, Description: "List a directory.",
			Body: "List a directory.\n\nMatch names with a glob such as `*.png` or `**/*.svg`; filter by extension, then sort by size."},
		{Name: "read-file", Z: 2, Triggers: []string{"read file", "cat"}, Description: "Print a file.",
			Body: "Print a file.\n\nShow its first lines when it is large; never print secrets."},
		{Name: "disk-usage", Z: 3, Triggers: []string{"disk usage", "df"}, Description: "Show free space.",
			Body: "Show free space.\n\nReport the filesystems over ninety percent first."},
	}
}

// bodyRequest is said only in list-files's body.
const bodyRequest = "every png image with a glob extension under assets"

// TestBodyWords: a request whose words only a skill's body holds finds
// that skill (relaxed), through the body index; without bodies
// (BodyTerms negative) it finds nothing.
func TestBodyWords(t *testing.T) {
	r := newTest(t, bodySkills(), nil)
	got := route(t, r, bodyRequest, nil)
	if len(got) == 0 || got[0].Name != "list-files" || got[0].Tier != TierRelaxed {
		t.Fatalf("with bodies: %s, want list-files, relaxed", brief(got))
	}
	for _, w := range []string{"glob", "png"} {
		if !slices.Contains(got[0].Hits, w) {
			t.Errorf("hits %q lack the body word %q", got[0].Hits, w)
		}
	}
	none := newTest(t, bodySkills(), &Options{BodyTerms: -1})
	if got := route(t, none, bodyRequest, nil); len(got) != 0 {
		t.Fatalf("without bodies: %s, want nothing", brief(got))
	}
	if got := route(t, r, bodyRequest, &Query{Mode: Spec}); len(got) != 0 {
		t.Fatalf("spec mode reads bodies: %s", brief(got))
	}
}

// TestBodyTerms: a body's terms are its distinct analysed words, stop
// words out, in first-use order, cut at the bound; the ASCII shortcut
// gives what the analyzer gives.
func TestBodyTerms(t *testing.T) {
	an := testAnalyzers(t)
	skills := Skills{{Body: "Deploying the services: deploy, then check the service health. Deploys are logged."}}
	x := newBodyIndexBuilder(1)
	br := newBodyReader(skills, an, 100, x)
	names := func(ids []uint32) []string {
		var out []string
		for _, id := range ids {
			for t, tid := range x.ids {
				if tid == id {
					out = append(out, t)
				}
			}
		}
		return out
	}
	got := names(br.terms([]byte(skills[0].Body)))
	want := []string{"deploi", "servic", "check", "health", "log"}
	if !slices.Equal(got, want) {
		t.Errorf("terms %q, want %q", got, want)
	}
	var viaAnalyzer []string
	for _, tok := range an.text.Analyze([]byte(skills[0].Body)) {
		if !slices.Contains(viaAnalyzer, string(tok.Term)) {
			viaAnalyzer = append(viaAnalyzer, string(tok.Term))
		}
	}
	if !slices.Equal(got, viaAnalyzer) {
		t.Errorf("ASCII shortcut %q, analyzer %q", got, viaAnalyzer)
	}
	if again := names(br.terms([]byte("check the HEALTH, then deploy"))); !slices.Equal(again, []string{"check", "health", "deploi"}) {
		t.Errorf("a second body, read with what the first left: %q", again)
	}
	if got := newBodyReader(skills, an, 2, x).terms([]byte(skills[0].Body)); len(got) != 2 {
		t.Errorf("bounded at 2: %q", names(got))
	}
	if got := names(br.terms([]byte("显示已签收可我根本没拿到"))); !slices.Contains(got, "签收") {
		t.Errorf("Chinese body terms %q lack the pair 签收", got)
	}
	if br := newBodyReader(skills, an, 0, x); br.src != nil {
		t.Errorf("bodies read at bound 0")
	}
}

// errBody is a Source whose bodies cannot be read.
type errBody struct{ Skills }

func (errBody) EachBody(context.Context, func(int, []byte) error) error {
	return errors.New("disk on fire")
}

// TestBodyReadError: bodies that cannot be read stop the build with the
// reason.
func TestBodyReadError(t *testing.T) {
	_, err := NewFrom(context.Background(), errBody{Skills(bodySkills())}, nil)
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v, want the cause", err)
	}
}

// TestBodyIndexCache: a cache entry holds the body index; a warm start
// answers from it as the cold one did, and an entry built from other
// bodies (same hash, one body changed) is not trusted.
func TestBodyIndexCache(t *testing.T) {
	dir := t.TempDir()
	skills := bodySkills()
	cold := newTest(t, skills, cacheOpts(dir))
	if cold.Info().Index != IndexCacheBuilt {
		t.Fatalf("cold: %+v", cold.Info())
	}
	if _, err := os.Stat(filepath.Join(cold.Info().Path, bodiesName)); err != nil {
		t.Fatalf("entry lacks %s: %v", bodiesName, err)
	}
	want := route(t, cold, bodyRequest, nil)
	warm := newTest(t, skills, cacheOpts(dir))
	if warm.Info().Index != IndexCacheHit {
		t.Fatalf("warm: %+v", warm.Info())
	}
	if got := route(t, warm, bodyRequest, nil); brief(got) != brief(want) || len(got) == 0 {
		t.Fatalf("warm %s, cold %s", brief(got), brief(want))
	}
	other := bodySkills()
	other[0].Body = "Nothing about pictures here."
	changed := newTest(t, other, cacheOpts(dir))
	if changed.Info().Index != IndexCacheBuilt || !strings.Contains(changed.Info().Reason, "fingerprint") {
		t.Fatalf("other bodies under the same hash: %+v, want a rebuild for the fingerprint", changed.Info())
	}
	if got := route(t, changed, bodyRequest, nil); len(got) != 0 {
		t.Fatalf("rebuilt entry answers %s from the old bodies", brief(got))
	}
}

// TestBodyIndexCodec: the saved index reads back as written; a damaged
// one is refused, never trusted.
func TestBodyIndexCodec(t *testing.T) {
	b := newBodyIndexBuilder(3)
	b.add(0, []uint32{b.id("glob"), b.id("png")})
	b.add(1, nil)
	b.add(2, []uint32{b.id("png"), b.id("disk")})
	x := b.finish()
	path := filepath.Join(t.TempDir(), bodiesName)
	if err := writeBodyIndex(path, x); err != nil {
		t.Fatal(err)
	}
	y, err := readBodyIndex(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{"glob", "png", "disk", "none"} {
		if !slices.Equal(x.postings(term), y.postings(term)) {
			t.Errorf("%q: %v after a round trip, %v before", term, y.postings(term), x.postings(term))
		}
	}
	if y.avgLength != x.avgLength || !slices.Equal(y.length, x.length) {
		t.Errorf("lengths %v/%v, want %v/%v", y.length, y.avgLength, x.length, x.avgLength)
	}
	if _, err := readBodyIndex(path, 4); !errors.Is(err, errBadBodies) {
		t.Errorf("read for 4 skills: %v, want errBadBodies", err)
	}
	data, _ := os.ReadFile(path)
	for _, cut := range []int{2, 10, len(data) - 3} {
		if _, err := decodeBodyIndex(data[:cut], 3); !errors.Is(err, errBadBodies) {
			t.Errorf("cut at %d: %v, want errBadBodies", cut, err)
		}
	}
}

// FuzzDecodeBodyIndex: no input makes the decoder panic, allocate past
// its bounds or return postings of skills it does not have.
func FuzzDecodeBodyIndex(f *testing.F) {
	b := newBodyIndexBuilder(2)
	b.add(0, []uint32{b.id("glob"), b.id("png")})
	b.add(1, []uint32{b.id("png")})
	path := filepath.Join(f.TempDir(), bodiesName)
	if err := writeBodyIndex(path, b.finish()); err != nil {
		f.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	f.Add(data)
	f.Add([]byte(bodiesMagic + "\xff\xff\xff\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := decodeBodyIndex(data, 2)
		if err != nil {
			return
		}
		for term := range x.ids {
			for _, s := range x.postings(term) {
				if int(s) >= 2 {
					t.Fatalf("term %q holds skill %d of 2", term, s)
				}
			}
		}
		x.score([]term{{"png", "png"}, {"glob", "glob"}})
	})
}

// TestBodyIndexMemory: the body index costs a few bytes a posting; the
// bound on a body's terms bounds it per skill.
func TestBodyIndexMemory(t *testing.T) {
	skills := genSkills(2000)
	for i := range skills {
		skills[i].Body = fmt.Sprintf("Step one: confirm the %s exists. Step two: %s it with care; record the outcome %d.", skills[i].Triggers[2], skills[i].Triggers[1], i)
	}
	r := newTest(t, skills, nil)
	x := r.bodies.Load()
	if x == nil {
		t.Fatal("no body index")
	}
	per := float64(x.size()) / float64(len(skills))
	t.Logf("body index: %d bytes, %.0f a skill, %d postings", x.size(), per, len(x.post))
	if per > 4*float64(DefaultBodyTerms)+64 {
		t.Errorf("body index holds %.0f bytes a skill, more than its postings bound", per)
	}
}

// TestBodyFewBodies: a request word that only one or two bodies hold
// counts for more than one many bodies hold, so two of them make a
// relaxed match where two words every body says do not.
func TestBodyFewBodies(t *testing.T) {
	skill := func(name string, z float64, body string) Skill {
		return Skill{Name: name, Z: z, Triggers: []string{name}, Description: "Handles " + name + ".", Body: body}
	}
	few := []Skill{
		skill("invoice", 1, "A voided invoice is reissued with the corrected tax number."),
		skill("refund", 2, "Refunds go back the way the buyer paid."),
		skill("exchange", 3, "Check the stock of the new size first."),
		skill("coupon", 4, "Say why the coupon does not apply."),
	}
	r := newTest(t, few, nil)
	const req = "can a voided one be reissued"
	if got := route(t, r, req, nil); len(got) == 0 || got[0].Name != "invoice" || got[0].Tier != TierRelaxed {
		t.Errorf("words one body holds: %s, want invoice, relaxed", brief(got))
	}
	many := slices.Clone(few)
	for i := 1; i < 3; i++ {
		many[i].Body += " A voided step is reissued."
	}
	if got := route(t, newTest(t, many, nil), req, nil); len(got) != 0 {
		t.Errorf("words three bodies hold: %s, want nothing", brief(got))
	}
}

// postings returns the skills whose bodies hold term (for tests).
func (x *bodyIndex) postings(term string) []uint32 {
	id, df := x.term(term)
	if df == 0 {
		return nil
	}
	out := make([]uint32, 0, df)
	x.eachPosting(id, func(s uint32) { out = append(out, s) })
	return out
}

// size is the index's approximate memory in bytes.
func (x *bodyIndex) size() int {
	n := len(x.post) + 4*len(x.start) + 4*len(x.df) + 4*len(x.length)
	for t := range x.ids {
		n += len(t) + 16 + 8
	}
	return n
}
