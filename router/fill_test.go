package router

import "testing"

// TestRelevanceFill: a request no trigger, name or description word
// meets, and too thin for the relaxed tier's evidence bar, still gets
// the skills the one engine finds through a stem or a body word, as
// runner-ups after anything found otherwise; stop words alone get
// nothing, and Limit 1 beside a sure match stays the sure match alone.
func TestRelevanceFill(t *testing.T) {
	skills := []Skill{
		{Name: "release", Z: 1, Triggers: []string{"ship it"}, Description: "Roll the service out to production"},
		{Name: "bump-dependency", Z: 2, Triggers: []string{"bump a module"}, Description: "Raise a Go module to a newer version",
			Body: "Run go get -u to update the module, then go mod tidy."},
		{Name: "weather", Z: 3, Triggers: []string{"forecast"}, Description: "The weather for a city"},
	}
	r := newTest(t, skills, nil)
	for _, c := range []struct{ text, want string }{
		{"who rolled it", "release"},        // a stem of the description's
		{"update cobra", "bump-dependency"}, // a body's word
	} {
		got := route(t, r, c.text, nil)
		if len(got) == 0 || got[0].Name != c.want || got[0].Tier != TierRunnerUp || len(got[0].Hits) == 0 {
			t.Errorf("%q: %+v, want %s first, a runner-up naming the words it holds", c.text, got, c.want)
		}
	}
	if got := route(t, r, "what is it for", nil); len(got) != 0 {
		t.Errorf("stop words alone: %+v, want nothing", got)
	}
	if got := route(t, r, "ship it and update", &Query{Limit: 1}); len(got) != 1 || got[0].Name != "release" {
		t.Errorf("limit 1: %+v, want release alone", got)
	}
	got := route(t, r, "ship it and update", nil)
	if len(got) != 2 || got[1].Name != "bump-dependency" || got[1].Tier != TierRunnerUp {
		t.Errorf("after a sure match: %+v, want release then bump-dependency as a runner-up", got)
	}
}

// TestRunnerUpsSayTheirWords: every runner-up lists a request word its
// skill holds; one brought in only by the commonest characters (了, 一)
// or by single characters the reader is not shown is left out, so the
// list a model reads has no line with nothing matched.
func TestRunnerUpsSayTheirWords(t *testing.T) {
	r := newTest(t, loadAgentSkills(t, "../examples/kefu.3md"), nil)
	for _, text := range []string{"手机号少写了一位", "衣服破了个洞，拍了照片，怎么处理", "我搬家了，寄到新家去吧", "吊牌还在，没洗过，能退吗"} {
		for _, m := range route(t, r, text, nil) {
			if len(m.Hits) == 0 {
				t.Errorf("%q: %s (%s) lists no word", text, m.Name, m.Tier)
			}
		}
	}
}
