package router

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// synonymSkills is a small agent whose skills say their intents in words
// the requests below avoid.
var synonymSkills = []Skill{
	{Name: "deploy-service", Z: 1, Triggers: []string{"deploy", "release a build", "roll out"},
		Description: "Deploy a service build to the cluster.", Tool: "kubectl apply -f {manifest}", Inputs: []string{"service"}},
	{Name: "tail-logs", Z: 2, Triggers: []string{"logs", "tail the logs", "stack trace"},
		Description: "Stream the most recent log lines of a service.", Tool: "kubectl logs deploy/{service}", Inputs: []string{"service"}},
	{Name: "chart-metric", Z: 3, Triggers: []string{"chart", "plot", "line graph"},
		Description: "Render a line chart of a metric over time.", Tool: "plotmetric {metric}", Inputs: []string{"metric"}},
	{Name: "draft-reply", Z: 4, Triggers: []string{"draft a reply", "compose"},
		Description: "Draft a reply to a customer's ticket.", Inputs: []string{"ticket"}},
	{Name: "bump-dependency", Z: 5, Triggers: []string{"upgrade", "bump", "outdated module"},
		Description: "Move one module to a newer version.", Tool: "go get {module}@{version}", Inputs: []string{"module", "version"}},
	{Name: "clean-data", Z: 6, Triggers: []string{"dedupe rows"},
		Description: "Clean a CSV file: trim cells, fix dates, drop duplicate rows.", Tool: "csvclean {file}", Inputs: []string{"file"}},
}

// withThesaurus runs fn with th as the router's thesaurus.
func withThesaurus(t *testing.T, th *thesaurus, fn func()) {
	t.Helper()
	saved := thesaurusOnce
	thesaurusOnce = func() *thesaurus { return th }
	defer func() { thesaurusOnce = saved }()
	fn()
}

// TestSynonymRoutes shows requests that use none of the right skill's
// words reaching it through the thesaurus, and that without it they
// reach nothing or something else.
func TestSynonymRoutes(t *testing.T) {
	r := newTest(t, synonymSkills, nil)
	tests := []struct {
		name, text, want string
	}{
		{"one word for two triggers", "ship the cart service this afternoon", "deploy-service"},
		{"a word for a trigger, another in the inputs", "what is the payments service printing", "tail-logs"},
		{"draw for chart and plot", "draw daily signups", "chart-metric"},
		{"update for upgrade and bump", "update cobra to v1.8", "bump-dependency"},
		{"a vocabulary gap bridged in the relaxed search", "tidy up this csv file", "clean-data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := route(t, r, tt.text, nil)
			if len(got) == 0 || got[0].Name != tt.want {
				t.Fatalf("Route(%q) = %s, want %s first", tt.text, brief(got), tt.want)
			}
			m := got[0]
			if m.Tier != TierRelaxed && m.Tier != TierDescribed || m.Score != 0 || m.Relevance <= 0 || len(m.Hits) == 0 {
				t.Errorf("first match %+v: want a relaxed match with relevance and hits", m)
			}
			withThesaurus(t, &thesaurus{}, func() {
				// A description's pair finds some without synonyms
				// (describedFirst); the relaxed tier must not.
				if without := found(t, r, tt.text, nil); len(without) > 0 && without[0].Name == tt.want && without[0].Tier == TierRelaxed {
					t.Errorf("without the thesaurus Route(%q) = %s already: the case shows nothing", tt.text, brief(without))
				}
			})
		})
	}
}

// TestSynonymBars holds synonyms to the bars of a relaxed match: one
// everyday word that covers a single trigger through a synonym is no
// match, nor is a skill that holds a request's words only through
// synonyms.
func TestSynonymBars(t *testing.T) {
	r := newTest(t, synonymSkills, nil)
	for _, text := range []string{
		"write a limerick about cheese", // write covers "compose" only
		"what is the weather in paris",
	} {
		if got := route(t, r, text, nil); len(got) > 0 {
			t.Errorf("Route(%q) = %s, want nothing", text, brief(got))
		}
	}
}

// TestSynonymsNeverOutrankPhrases checks that a phrase hit, as written or
// through stems, decides the route alone: synonyms are read only when no
// phrase hits, so they cannot add a skill ahead of it or beside it.
func TestSynonymsNeverOutrankPhrases(t *testing.T) {
	r := newTest(t, synonymSkills, nil)
	for _, tt := range []struct{ text, want string }{
		{"ship the logs of cart", "tail-logs"},           // exact hit "logs"; "ship" means deploy
		{"charting the payments output", "chart-metric"}, // stem hit "chart"; "output" means logs
	} {
		got := route(t, r, tt.text, nil)
		if len(got) != 1 || got[0].Name != tt.want || got[0].Tier != TierPhrase {
			t.Errorf("Route(%q) = %s, want only %s by phrase", tt.text, brief(got), tt.want)
		}
	}
}

// TestSynonymsLeaveSpec routes requests in Spec mode with and without the
// thesaurus: the answers are identical, and nothing is found through a
// synonym.
func TestSynonymsLeaveSpec(t *testing.T) {
	r := newTest(t, synonymSkills, nil)
	spec := &Query{Mode: Spec}
	for _, text := range []string{
		"ship the cart service this afternoon", "what is the payments service printing",
		"draw daily signups", "update cobra to v1.8", "ship the logs of cart", "deploy and chart it",
	} {
		with := route(t, r, text, spec)
		var without []Match
		withThesaurus(t, &thesaurus{}, func() { without = route(t, r, text, spec) })
		if !reflect.DeepEqual(with, without) {
			t.Errorf("Spec Route(%q) = %s with the thesaurus, %s without", text, brief(with), brief(without))
		}
		for _, m := range with {
			if m.Tier != TierPhrase {
				t.Errorf("Spec Route(%q): %s has tier %s", text, m.Name, m.Tier)
			}
		}
	}
}

func TestExpand(t *testing.T) {
	th, err := parseThesaurus("deploy, ship, roll out, push to production\nlogs, printing, stdout\ndelete, remove, get rid of\n")
	if err != nil {
		t.Fatal(err)
	}
	// The agent's index holds these stems only.
	held := map[string]bool{}
	for _, w := range []string{"deploy", "push", "production", "stdout", "logs", "delete", "remove", "cart"} {
		held[stem(w)] = true
	}
	has := func(term string) bool { return held[term] }
	withThesaurus(t, th, func() {
		// word>stem, + for part of a member of several words (never
		// searched alone).
		for _, tt := range []struct{ text, want string }{
			// Only words the index lacks are read as synonyms, and only
			// synonyms it holds are added; "roll out" lacks "roll", so it
			// brings nothing for "ship". Stop words are never added.
			{"ship cart", "ship>deploi ship>push+ ship>product+"},
			{"roll out cart", "roll>deploi roll>push+ roll>product+"},
			// A word the index holds ("deploy") is left as it is; the
			// request's own words are not added again.
			{"deploy printing logs", "printing>stdout"},
			{"get rid of it", "get>delet get>remov"},
			{"nothing to see", "none"},
		} {
			toks := appendTokens(nil, tt.text)
			if got := holdThesaurus(th, has).expand(toks, appendStems(nil, toks)).String(); got != tt.want {
				t.Errorf("expand(%q) = %s, want %s", tt.text, got, tt.want)
			}
		}
	})
}

// TestEverydayWordsBringNothing: words every kind of request says bring
// no group of the shipped thesaurus, however little of them an agent's
// index holds. Each was once brought in by a member whose Porter stem
// is the everyday word's ("localize" → local, "takings" → take,
// "headings" → head) or by a member that is the word in another sense
// ("checkout", a shop's, read as git's).
func TestEverydayWordsBringNothing(t *testing.T) {
	th, err := parseThesaurus(thesaurusText)
	if err != nil {
		t.Fatal(err)
	}
	// An index holding every word but the request's: whatever a request
	// word brings is added.
	for _, text := range []string{
		"set it up locally", "is it local", "take a look at it", "taking too long",
		"the head of support", "the checkout page",
	} {
		toks := appendTokens(nil, text)
		stems := appendStems(nil, toks)
		has := func(term string) bool { return !slices.Contains(stems, term) }
		if got := holdThesaurus(th, has).expand(toks, stems).String(); got != "none" {
			t.Errorf("expand(%q) = %s, want none", text, got)
		}
	}
	// Chinese: what a shopper says about anything (the index lacks every
	// pair of the request).
	for _, text := range []string{"在吗", "你好亲", "谢谢", "不要了", "大了一点", "用不了", "东西坏了", "怎么办", "什么时候", "我想问一下"} {
		has := func(term string) bool { return !strings.Contains(text, term) }
		if got := holdThesaurus(th, has).expand([]string{text}, []string{text}).String(); got != "none" {
			t.Errorf("expand(%q) = %s, want none", text, got)
		}
	}
}

// TestExpandOneWay: in a one-way group the names before the colon bring
// the generic words after it (and the other names the index holds), and
// a generic word brings nothing: "chart" is no synonym of "visualize"
// because one tool stands for both.
func TestExpandOneWay(t *testing.T) {
	th, err := parseThesaurus("matplotlib, seaborn, vega lite: chart, plot, visualize\n")
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for _, w := range []string{"chart", "plot", "seaborn", "lite", "png"} {
		held[stem(w)] = true
	}
	has := func(term string) bool { return held[term] }
	for _, tt := range []struct{ text, want string }{
		{"render a matplotlib png", "matplotlib>seaborn matplotlib>chart matplotlib>plot"},
		{"a vega lite spec", "vega>seaborn vega>chart vega>plot"},
		// Targets are brought, never looked up: "visualize" is a gap
		// here, yet it brings neither "chart" nor the tool names.
		{"visualize revenue", "none"},
		{"chart revenue", "none"},
	} {
		toks := appendTokens(nil, tt.text)
		if got := holdThesaurus(th, has).expand(toks, appendStems(nil, toks)).String(); got != tt.want {
			t.Errorf("expand(%q) = %s, want %s", tt.text, got, tt.want)
		}
	}
}

// TestJargonCountsAsWord: a tool name read through a one-way group counts
// towards the two request words a relaxed match needs, beside one word as
// written that is not among the commonest English words, while the same
// word in an ordinary group adds only weight, and a tool name never makes
// a match alone.
func TestJargonCountsAsWord(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "deploy-service", Z: 1, Triggers: []string{"deploy", "helmfile sync"},
			Description: "Roll a service build out to the staging cluster.", Inputs: []string{"service"}},
		{Name: "tail-logs", Z: 2, Triggers: []string{"logs"},
			Description: "Stream the most recent log lines of a service.", Inputs: []string{"service"}},
	}, nil)
	const text = "eks helmfile for the cart" // "cluster" is in deploy-service's description only
	for _, tt := range []struct {
		thesaurus, text, want string
	}{
		{"eks: cluster\n", text, "deploy-service"},
		{"eks, cluster\n", text, ""},                       // an everyday synonym adds no word
		{"eks: cluster\n", "eks for the cart", ""},         // no word as written
		{"eks: cluster\n", "eks for the cart service", ""}, // only a common one ("service")
	} {
		th, err := parseThesaurus(tt.thesaurus)
		if err != nil {
			t.Fatal(err)
		}
		withThesaurus(t, th, func() {
			got := found(t, r, tt.text, nil)
			if tt.want == "" && len(got) > 0 || tt.want != "" && (len(got) == 0 || got[0].Name != tt.want) {
				t.Errorf("with %q, Route(%q) = %s, want %q", tt.thesaurus, tt.text, brief(got), tt.want)
			}
		})
	}
	for _, tt := range []struct {
		ev   relaxedEvidence
		want bool
	}{
		{relaxedEvidence{weight: 2, own: 2}, true},
		{relaxedEvidence{weight: 1, syn: 1, own: 1, rare: 1, jargon: 1}, true},
		{relaxedEvidence{weight: 1, syn: 1, own: 1, jargon: 1}, false}, // the word written is a common one
		{relaxedEvidence{weight: 1, syn: 1, own: 1, rare: 1}, false},
		{relaxedEvidence{syn: 2, jargon: 2}, false},
	} {
		if got := tt.ev.enough(1); got != tt.want {
			t.Errorf("%+v.enough(1) = %v, want %v", tt.ev, got, tt.want)
		}
	}
}

// TestJargonPhrasesNeedWords: a tool name that stands for several generic
// words covers several of a skill's phrases at once, so unlike an
// everyday synonym it does not make a match by phrases alone: the
// request needs the two words any relaxed match needs.
func TestJargonPhrasesNeedWords(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "run-tests", Z: 1, Triggers: []string{"tests", "unit tests", "run the suite"},
			Description: "Run the package's tests and report failures.", Inputs: []string{"pkg"}},
		{Name: "tail-logs", Z: 2, Triggers: []string{"logs"},
			Description: "Stream the most recent log lines of a service.", Inputs: []string{"service"}},
	}, nil)
	const text = "print the pytest conference poster"
	for _, tt := range []struct{ thesaurus, want string }{
		{"pytest: test, unit test\n", ""},          // a tool named in passing
		{"pytest, test, unit test\n", "run-tests"}, // an everyday synonym covering two phrases
	} {
		th, err := parseThesaurus(tt.thesaurus)
		if err != nil {
			t.Fatal(err)
		}
		withThesaurus(t, th, func() {
			got := route(t, r, text, nil)
			if tt.want == "" && len(got) > 0 || tt.want != "" && (len(got) == 0 || got[0].Name != tt.want) {
				t.Errorf("with %q, Route(%q) = %s, want %q", tt.thesaurus, text, brief(got), tt.want)
			}
		})
	}
}

// String shows an expansion in test failures.
func (ex *expansion) String() string {
	if ex == nil {
		return "none"
	}
	var b strings.Builder
	for i, t := range ex.syn {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(t.word + ">" + t.stem)
		if t.part != nil {
			b.WriteString("+")
		}
	}
	return b.String()
}

// TestExpandUnspaced: a member in an unspaced script (Chinese) is met
// inside the text between the agent's words, leftmost and longest first,
// never across two of the segmenter's tokens, and brings its groups'
// members the index holds (as pairs of characters) when the index lacks
// one of its own pairs.
func TestExpandUnspaced(t *testing.T) {
	th, err := parseThesaurus("电话, 手机号, 手机号码, 联系电话\n订单号, 订单编号\n单号, 运单\n退款, 退钱, 把钱退回\n")
	if err != nil {
		t.Fatal(err)
	}
	// The agent's index holds these pairs only: 电话, 联系电话, 运单 and
	// 退款 whole, 手机号 in part.
	held := map[string]bool{}
	for _, w := range []string{"电话", "联系", "系电", "运单", "退款", "手机"} {
		held[w] = true
	}
	has := func(term string) bool { return held[term] }
	for _, tt := range []struct {
		toks []string // as the segmenter cut the request
		want string
	}{
		{[]string{"手机号少写了一位"}, "手机号>电话 手机号>联系电话"},
		{[]string{"手机号码不对"}, "手机号码>电话 手机号码>联系电话"}, // longest first
		{[]string{"我想把钱退回来"}, "把钱退回>退款"},
		{[]string{"k8s", "退钱吧"}, "退钱>退款"},
		// "订单号" is read whole: its "单号" brings nothing.
		{[]string{"订单号是多少"}, "none"},
		{[]string{"单号是多少"}, "单号>运单"},
		// A member the index holds means what the agent uses it for.
		{[]string{"电话打不通"}, "none"},
		// Never across a word boundary the segmenter found.
		{[]string{"我的手", "机号"}, "none"},
		// The request says the synonym itself.
		{[]string{"退钱还是退款"}, "none"},
		{[]string{"退钱", "or", "退款呢"}, "none"},
		// Once per member, however often the request says it.
		{[]string{"退钱退钱", "退钱"}, "退钱>退款"},
	} {
		if got := holdThesaurus(th, has).expand(tt.toks, appendStems(nil, tt.toks)).String(); got != tt.want {
			t.Errorf("expand(%q) = %s, want %s", tt.toks, got, tt.want)
		}
	}
}

// TestSynonymRoutesChinese: requests to the Chinese example agent that
// say an intent in words its skills do not use reach the right skill as
// a relaxed match through the thesaurus's Chinese section, and without
// it are only a runner-up (or nothing).
func TestSynonymRoutesChinese(t *testing.T) {
	r := newTest(t, Skills(loadAgentSkills(t, "../examples/kefu.3md")), nil)
	for _, tt := range []struct{ text, want string }{
		{"能退费吗", "refund"},
		{"退我钱", "refund"},
		{"帮我调换一下", "exchange"},
	} {
		got := route(t, r, tt.text, nil)
		if len(got) == 0 || got[0].Name != tt.want || got[0].Tier != TierRelaxed {
			t.Errorf("Route(%q) = %s, want %s first, relaxed", tt.text, brief(got), tt.want)
		}
		withThesaurus(t, &thesaurus{}, func() {
			if without := route(t, r, tt.text, nil); len(without) > 0 && without[0].Tier == TierRelaxed {
				t.Errorf("without the thesaurus Route(%q) = %s already: the case shows nothing", tt.text, brief(without))
			}
		})
	}
}
