package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

func TestEveryday(t *testing.T) {
	for _, c := range []struct {
		trigger string
		flagged bool
	}{
		{"push", true},
		{"scale", true},
		{"check status", true},
		{"Check Status", true},
		{"status update", true},
		{"push the branch", false}, // names what it acts on
		{"git push", false},
		{"look up", false}, // an idiom with a stop word: measured net-positive
		{"run the tests", false},
		{"deploy", false},
		{"退款", false}, // not English: the list says nothing
		{"", false},
	} {
		s := &SkillText{Name: "git-push", Triggers: []string{c.trigger}, File: "a.3md", Line: 7, TriggersLine: 7}
		fs := everyday(s)
		if got := len(fs) == 1; got != c.flagged {
			t.Errorf("%q: flagged %v, want %v (%v)", c.trigger, got, c.flagged, fs)
			continue
		}
		if c.flagged && (fs[0].Rule != RuleEverydayTrigger || fs[0].Line != 7 || !strings.Contains(fs[0].Message, "name what the skill acts on")) {
			t.Errorf("%q: finding %+v", c.trigger, fs[0])
		}
	}
	if fs := everyday(&SkillText{Name: "git-push", Triggers: []string{"push"}}); !strings.Contains(fs[0].Message, `as in "push the …"`) {
		t.Errorf("no example of the fix: %s", fs[0].Message)
	}
}

func TestDescribesWhen(t *testing.T) {
	for _, c := range []struct {
		desc     string
		triggers []string
		ok       bool
	}{
		{"PDF toolkit for documents.", nil, false},
		{"A collection of Terraform modules.", nil, false},
		{"PDF toolkit. Use when the user asks to fill a PDF form.", nil, true},
		{"Fills PDF forms if the user wants one filled.", nil, true},
		{"PDF toolkit for documents.", []string{"fill a pdf"}, true}, // the triggers say when
		{"处理退款，用于客户申请退款时", nil, true},
		{"", nil, true}, // the description rule says it is missing
	} {
		f, ok := describesWhen(&SkillText{Name: "pdf", Description: c.desc, Triggers: c.triggers, File: "SKILL.md", Line: 3})
		if ok != c.ok {
			t.Errorf("%q: ok %v, want %v", c.desc, ok, c.ok)
		}
		if !ok && (f.Rule != RuleDescriptionWhen || f.Line != 3 || !strings.Contains(f.Message, "Use when")) {
			t.Errorf("%q: finding %+v", c.desc, f)
		}
	}
}

func match(name, tier string, score int, rel float64) router.Match {
	return router.Match{Name: name, Tier: tier, Score: score, Relevance: rel, Hits: []string{"w"}}
}

func TestJudge(t *testing.T) {
	s := &SkillText{Name: "a", File: "f", Line: 4, TriggersLine: 4}
	desc := probe{text: "desc"}
	trig := probe{trigger: "t", text: "t"}
	for _, c := range []struct {
		name  string
		p     probe
		ms    []router.Match
		rule  string
		other string
	}{
		{"own description first alone", desc, []router.Match{match("a", "relaxed", 0, 1)}, "", ""},
		{"another first", desc, []router.Match{match("b", "phrase", 1, 0), match("a", "relaxed", 0, 1)}, RuleCompeting, "b"},
		{"not in the top 3", desc, []router.Match{match("b", "relaxed", 0, 1)}, RuleCompeting, "b"},
		{"relaxed runner-up shown", desc, []router.Match{match("a", "relaxed", 0, 1), match("c", "relaxed", 0, 0.5)}, RuleCompeting, "c"},
		{"close sure tie", desc, []router.Match{match("a", "phrase", 1, 1), match("c", "phrase", 1, 0.95)}, RuleCompeting, "c"},
		{"sure runner-up well behind", desc, []router.Match{match("a", "phrase", 1, 1), match("c", "phrase", 1, 0.5)}, "", ""},
		{"sure runner-up with fewer phrases", desc, []router.Match{match("a", "phrase", 2, 0), match("c", "phrase", 1, 0)}, "", ""},
		{"sure beats relaxed: no tie", desc, []router.Match{match("a", "phrase", 1, 0), match("c", "relaxed", 0, 5)}, "", ""},
		{"trigger also fires b first", trig, []router.Match{match("b", "phrase", 1, 0), match("a", "phrase", 1, 0)}, RuleSharedTrigger, "b"},
		{"trigger ties b", trig, []router.Match{match("a", "phrase", 1, 0), match("b", "phrase", 1, 0)}, RuleSharedTrigger, "b"},
		{"trigger: b only relaxed", trig, []router.Match{match("a", "phrase", 1, 0), match("b", "relaxed", 0, 1)}, "", ""},
		{"trigger: b scores less", trig, []router.Match{match("a", "phrase", 2, 1), match("b", "phrase", 1, 1)}, "", ""},
		{"nothing matched", desc, nil, "", ""},
	} {
		f := judge(s, c.p, c.ms, DefaultClose)
		switch {
		case c.rule == "" && f != nil:
			t.Errorf("%s: unexpected %+v", c.name, f)
		case c.rule != "" && (f == nil || f.Rule != c.rule || f.Other != c.other || f.Line != 4):
			t.Errorf("%s: got %+v, want %s naming %s", c.name, f, c.rule, c.other)
		}
	}
}

// TestCheckAgent lints a real agent through the router, as validate does.
func TestCheckAgent(t *testing.T) {
	ctx := context.Background()
	path := "testdata/compete.3md"
	ag, err := loader.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	r, err := router.ForAgent(ctx, ag, &router.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cat, info := ag.Scanned()
	var skills []SkillText
	for _, s := range info.Skills {
		if s.Plane == info.Identity {
			continue
		}
		pl := cat.Planes[s.Plane]
		skills = append(skills, SkillText{Name: s.Name, Description: pl.Description, Triggers: s.Triggers, File: path, Line: pl.Line, TriggersLine: pl.Line})
	}
	fs, err := Check(ctx, skills, func(ctx context.Context, text string) ([]router.Match, error) {
		return r.Route(ctx, text, &router.Query{Mode: router.Ranked, Limit: router.DefaultLimit})
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Finding{}
	for _, f := range fs {
		got[f.Rule+" "+f.Skill+" "+f.Other] = f
		t.Logf("%s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
	}
	if _, ok := got["everyday-trigger git-push "]; !ok {
		t.Errorf("the trigger \"push\" is not reported")
	}
	// Each pair once, on the skill whose probe lost: deploy-app's
	// "push the branch" reaches git-push first.
	pairs := []struct{ rule, a, b string }{
		{RuleSharedTrigger, "git-push", "deploy-app"},
		{RuleCompeting, "constant-time-analysis", "constant-time-testing"},
	}
	for _, p := range pairs {
		_, ab := got[p.rule+" "+p.a+" "+p.b]
		_, ba := got[p.rule+" "+p.b+" "+p.a]
		if ab == ba {
			t.Errorf("%s %s/%s: reported %v and %v, want once", p.rule, p.a, p.b, ab, ba)
		}
	}
	// The PDF skills differ in their triggers and in what they convert:
	// the router keeps them apart, and so does the lint.
	for k := range got {
		if strings.Contains(k, "pdf-") {
			t.Errorf("unexpected %s", k)
		}
	}
}
