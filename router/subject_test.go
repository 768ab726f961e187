package router

import (
	"slices"
	"strings"
	"testing"
)

func TestAboutSubject(t *testing.T) {
	for _, tt := range []struct {
		text  string
		about bool
	}{
		{"what is a feature flag", true},
		{"What's kubernetes?", true},
		{"what is the meaning of p99", true},
		{"how does a canary deploy work", true},
		{"what's the difference between a refund and a chargeback", true},
		{"show me the history of lines 40-80", false},
		{"什么是七天无理由退货", true},
		{"退款和退货有什么区别", true},
		{"what is the status of order 123", false},
		{"why is the build red", false},
		{"how do I deploy the api", false},
		{"我的订单状态是什么", false},
		{"deploy the api", false},
		// order.go's frames, each with a task said in the same words.
		{"is PagerDuty a good company to interview at", true},
		{"is Stripe worth learning", true},
		{"recommend a podcast about the history of Linux", true},
		{"how do you pronounce nginx", true},
		{"who founded Datadog", true},
		{"who wrote this retry loop in client.go?", false},
		{"how does the cache invalidation work here?", false},
		{"what's the point of the crc check in body.go", false},
		{"快递行业最近是不是很辛苦", true},
		{"优惠券这个词用英文怎么说", true},
		{"我在学做发票管理系统，有什么开源项目推荐", true},
		{"快递员一个月能挣多少钱", true},
		{"电子发票是什么", true},
		{"这款外套质量怎么样", true},
		{"我的退款怎么样了", false},
		{"订单123是什么状态", false},
		{"when was Kubernetes first released", true},
		{"is Go still popular", true},
		{"how much does a site reliability engineer earn", true},
		{"is a refund the same thing as a chargeback", true},
		{"退款和退货一样吗", true},
		{"brief history of the c++ standards committee", true},
		{"history of the kubernetes project", true},
		{"show the history of this file", false},
		{"how much does grafana cloud cost compared to datadog per host", true},
		{"how much does our cluster cost per month", false},
		{"tips for passing the CKA kubernetes exam next week", true},
		{"run the exam grading script", false},
		{"电子发票在税法上怎么定义", true},
		{"顺丰和中通一般哪家快", true},
		{"网购退货这个做法的由来", true},
		{"写论文用：差评对网店销量的影响", true},
		{"物流管理考研选哪个学校", true},
		{"哪家快递能送到我家这个地址", false},
		{"when was the maxDepth check introduced", false},
	} {
		if got := asksAbout(tt.text); got != tt.about {
			t.Errorf("aboutSubject(%q) = %v, want %v", tt.text, got, tt.about)
		}
	}
}

// TestAboutSubjectDemotes: a trigger phrase said in a question about
// its subject leaves its skill first, as a guess, not a sure match.
func TestAboutSubjectDemotes(t *testing.T) {
	r := newTest(t, []Skill{{Name: "refund", Z: 1, Triggers: []string{"refund"}, Description: "Refund an order"}}, nil)
	if got := route(t, r, "refund order 123", nil); len(got) == 0 || got[0].Tier != TierPhrase {
		t.Fatalf("a task: %s, want a phrase hit", brief(got))
	}
	got := route(t, r, "what is the difference between a refund and a chargeback", nil)
	if len(got) == 0 || got[0].Name != "refund" || got[0].Tier != TierRelaxed || got[0].Fit <= 0 {
		t.Errorf("about the subject: %+v, want refund first as a relaxed guess with its fit", got)
	}
}

// TestLoneEverydayTrigger: a one-word trigger makes a sure match in a
// request of four words or more only with company, another request word
// the skill's name or description holds; an everyday one (English's
// commonest) said first needs it in three. A word that is no English
// word (a tool's name) is evidence alone.
func TestLoneEverydayTrigger(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "git-push", Z: 1, Triggers: []string{"push"}, Description: "Push the current branch to its remote"},
		{Name: "kubectl-scale", Z: 2, Triggers: []string{"scale deployment"}, Description: "Scale a deployment"},
		{Name: "check-status", Z: 3, Triggers: []string{"status"}, Description: "Show the state of the build queue"},
		{Name: "verify", Z: 4, Triggers: []string{"verify"}, Description: "Check an agent file's signature"},
		{Name: "lint", Z: 5, Triggers: []string{"staticcheck"}, Description: "Run the linters"},
	}, nil)
	if got := route(t, r, "push my branch", nil); len(got) == 0 || got[0].Name != "git-push" || got[0].Tier != TierPhrase {
		t.Errorf("with company: %s, want git-push sure", brief(got))
	}
	if got := route(t, r, "push the swing a bit higher today", nil); len(got) == 0 || got[0].Name != "git-push" || got[0].Tier != TierRelaxed {
		t.Errorf("alone: %s, want git-push first as a relaxed guess", brief(got))
	}
	// Three words: one more than the trigger and its object.
	if got := route(t, r, "push the meeting to Thursday", nil); len(got) == 0 || got[0].Name != "git-push" || got[0].Tier != TierRelaxed {
		t.Errorf("alone in three words: %s, want git-push first as a relaxed guess", brief(got))
	}
	for _, tt := range []struct {
		text, want, tier string
	}{
		{"verify my email address for the newsletter", "verify", TierRelaxed}, // not an everyday word, still alone
		{"tell me the status of my pizza delivery", "check-status", TierRelaxed},
		{"verify the signature", "verify", TierPhrase},                    // three words: the trigger is the errand
		{"verify the signature of this agent file", "verify", TierPhrase}, // company: signature, agent, file
		{"status of the build queue please", "check-status", TierPhrase},
		{"any staticcheck warnings in the mcp package", "lint", TierPhrase}, // no English word: a tool's name
	} {
		if got := route(t, r, tt.text, nil); len(got) == 0 || got[0].Name != tt.want || got[0].Tier != tt.tier {
			t.Errorf("%q: %s, want %s first, %s", tt.text, brief(got), tt.want, tt.tier)
		}
	}
}

// TestLoneTriggerAmongStrangers: in a question too short for company to
// be asked, a one-word English trigger whose every other word is an
// English word no skill holds makes a guess, not a sure match; a number
// is passed over. A word of the agent, a word that is no English word (a
// name, a misspelling), or a short imperative keeps it sure.
func TestLoneTriggerAmongStrangers(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "forecast", Z: 1, Triggers: []string{"forecast"}, Description: "Project a metric's next weeks from its history"},
		{Name: "tail-logs", Z: 2, Triggers: []string{"logs"}, Description: "Stream a service's logs"},
	}, nil)
	for _, tt := range []struct {
		text, want, tier string
	}{
		{"what's the weather forecast for saturday", "forecast", TierRelaxed},
		{"what is the forecast for 2027", "forecast", TierPhrase}, // a number alone is no stranger
		{"what is the forecast for falcon 9", "forecast", TierRelaxed},
		{"what's the forecast of this metric", "forecast", TierPhrase},  // the agent's word
		{"what's the forecast for kafkalag", "forecast", TierPhrase},    // no English word: a name
		{"ship the logs of cart", "tail-logs", TierPhrase},              // an imperative's object may be a name
		{"where are the logs of the wedding", "tail-logs", TierRelaxed}, // a question among strangers
	} {
		if got := route(t, r, tt.text, nil); len(got) == 0 || got[0].Name != tt.want || got[0].Tier != tt.tier {
			t.Errorf("%q: %s, want %s first, %s", tt.text, brief(got), tt.want, tt.tier)
		}
	}
}

// TestCues: cues.in, which reads an ASCII request in place, agrees with
// lowercasing the request and searching it for each word, for the
// question frames' cues and the conditional clauses' words, on requests
// that say one in any case, at either end, across a word boundary or
// not at all, and on non-ASCII ones (İ lowercases to i; 如果).
func TestCues(t *testing.T) {
	texts := []string{"", "deploy the nightly report", "WHAT", "wha", "sHoW the logs", "this", "Is it red",
		"the build is", "the build is red", "ARE we there", "hare ", "login in prod", "in prod", "x in",
		"MUCH", "salar", "SALARY", "recommend", "recommen", "difference", "When", "who", "İs it", "Ärger in Berlin",
		"rotate the logs and check disk usage", "send my branch to the team on GitHub so they can review it",
		"IF it fails, retry", "retry if", "retry if it fails", "Unless told", "unles ", "In Case of fire", "in  case",
		"如果没发货就改地址", "没发货的话", "iF", "İf it fails, retry"}
	for _, c := range []*cues{aboutCues, conditionWords} {
		n := 0
		for _, text := range texts {
			l := strings.ToLower(text)
			want := slices.ContainsFunc(c.words, func(w string) bool { return strings.Contains(l, w) })
			if got := c.in(text); got != want {
				t.Errorf("%v.in(%q) = %v, want %v", c.words, text, got, want)
			}
			if want {
				n++
			}
		}
		if n == 0 || n == len(texts) {
			t.Errorf("%v: %d of %d texts say one: the table tests one side only", c.words, n, len(texts))
		}
	}
}
