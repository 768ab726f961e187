package router

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestSpecifics checks the word statistics behind Ranked evidence: a stem
// counts once per skill whether its triggers, its name or both use it, and
// words only names use get ids of their own.
func TestSpecifics(t *testing.T) {
	skills := Skills{
		{Name: "list-files", Triggers: []string{"list", "list files", "listing"}},
		{Name: "list-users", Triggers: []string{"who is"}},
		{Name: "recent-deploys", Triggers: []string{"deploys", "rollout"}},
		{Name: "empty"},
	}
	sp := buildSpecifics(skills, buildPhrases(skills))
	idf := func(st string) float64 {
		t.Helper()
		id, ok := sp.id(st)
		if !ok {
			t.Fatalf("stem %q unknown", st)
		}
		return sp.idf[id]
	}
	want := func(df float64) float64 { return math.Log(1 + 4/df) }
	// "list": list-files' triggers (three phrases) and name, list-users' name.
	if got := idf("list"); got != want(2) {
		t.Errorf("idf(list) = %v, want %v (two skills)", got, want(2))
	}
	if got := idf("deploi"); got != want(1) {
		t.Errorf("idf(deploi) = %v, want %v", got, want(1))
	}
	// "users" and "recent" occur only in names.
	if got := idf("user"); got != want(1) {
		t.Errorf("idf(user) = %v, want %v", got, want(1))
	}
	name := func(i int) []string {
		var out []string
		for _, id := range sp.names.list(i) {
			for st, sid := range sp.x.stems.ids {
				if sid == id {
					out = append(out, st)
				}
			}
			for st, sid := range sp.extra {
				if sid == id {
					out = append(out, st)
				}
			}
		}
		return out
	}
	if got := name(2); !slices.Equal(got, []string{"recent", "deploi"}) {
		t.Errorf("name of recent-deploys = %q, want [recent deploi]", got)
	}
	var named []int
	rq := sp.request([]string{"list"}, []string{"list"})
	sp.namedBy(rq, func(s int) { named = append(named, s) })
	if !slices.Equal(named, []int{0, 1}) {
		t.Errorf("skills named by %q: %v, want [0 1]", "list", named)
	}
	named = named[:0]
	rq = sp.request([]string{"list", "the", "deploys"}, []string{"list", "the", "deploi"})
	sp.namedBy(rq, func(s int) { named = append(named, s) })
	if len(named) != 0 {
		t.Errorf("skills named by %q: %v, want none (no name holds both)", "list the deploys", named)
	}
}

func TestSaysName(t *testing.T) {
	skills := Skills{{Name: "summarize-invoice", Triggers: []string{"summarize", "invoice", "says"}}}
	sp := buildSpecifics(skills, buildPhrases(skills))
	name := sp.names.list(0)
	for text, want := range map[string]bool{
		"summarize the invoice":           true,
		"summarize invoice":               true,
		"summarize this and that invoice": false, // too far apart
		"invoice summarize":               false, // out of order
		"summarize":                       false,
	} {
		toks := appendTokens(nil, text)
		if got := sp.request(toks, appendStems(nil, toks)).saysName(name); got != want {
			t.Errorf("%q says summarize-invoice: %v, want %v", text, got, want)
		}
	}
}

// request looks up a request's tokens (toks, with their stems) as
// Router.readRequest does from its word memo.
func (sp *specifics) request(toks, stems []string) request {
	seq, stop := []uint32(nil), make([]bool, len(toks))
	for i, st := range stems {
		id, ok := sp.id(st)
		if !ok {
			id = noID
		}
		seq, stop[i] = append(seq, id), stopWords[toks[i]]
	}
	return sp.readSeq(request{}, toks, stems, seq, stop)
}

// appendStems appends the Porter stem of each token to dst, as a route
// reads them.
func appendStems(dst, toks []string) []string {
	for _, tok := range toks {
		dst = append(dst, routeStem(tok))
	}
	return dst
}

// TestRequestWordsLong: a request's distinct words are the same, in the
// same first-said order, whether it is told apart by a scan (short) or
// by a set (over distinctByScan tokens): stop words out, each word once.
func TestRequestWordsLong(t *testing.T) {
	skills := Skills{{Name: "deploy-report", Triggers: []string{"deploy"}, Description: "Deploy the report"}}
	sp := buildSpecifics(skills, buildPhrases(skills))
	base := strings.Fields("deploy the report and the nightly build of the report for deploy")
	for _, n := range []int{1, distinctByScan/len(base) + 2, 40} {
		var toks []string
		for range n {
			toks = append(toks, base...)
		}
		var want []string
		for _, w := range toks {
			if !stopWords[w] && !slices.Contains(want, w) {
				want = append(want, w)
			}
		}
		if got := sp.request(toks, appendStems(nil, toks)).words; !slices.Equal(got, want) {
			t.Errorf("%d tokens: words %q, want %q", len(toks), got, want)
		}
	}
}
