package router

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

var rankedSkills = []Skill{
	{Name: "search-code", Z: 1, Triggers: []string{"find", "grep", "who calls"},
		Description: "Find where a symbol is defined and every caller of it.", Tool: "rg --json {pattern}", Inputs: []string{"pattern"}},
	{Name: "write-commit", Z: 2, Triggers: []string{"commits", "commit message"},
		Description: "Write a commit message for the staged changes.", Tool: "git commit -m {message}", Inputs: []string{"message"}},
	{Name: "deploy-staging", Z: 3, Triggers: []string{"deploy"},
		Description: "Ship the current build to the staging cluster.", Tool: "kubectl apply -f {manifest}", Inputs: []string{"manifest"}},
	{Name: "deploy-prod", Z: 4, Triggers: []string{"deploy"},
		Description: "Ship a tagged release to the production cluster after approval.", Tool: "kubectl apply -f {manifest}", Inputs: []string{"manifest"}},
	{Name: "rotate-certificates", Z: 5, Triggers: []string{"renew tls"},
		Description: "Rotate expiring TLS certificates on the load balancers.", Tool: "certbot renew", Inputs: []string{"domain"}},
	{Name: "stem-heavy", Z: 6, Triggers: []string{"deploys", "releases", "productions"},
		Description: "Only reachable through stems."},
}

func TestRanked(t *testing.T) {
	r := newTest(t, rankedSkills, nil)
	tests := []struct {
		name, text string
		want       []string // names in order
		tier       string
		hits       []string // of the first match
	}{
		{"stem of trigger", "finding the bug", []string{"search-code"}, TierPhrase, []string{"find"}},
		{"stem of request", "commit this", []string{"write-commit"}, TierPhrase, []string{"commits"}},
		{"relevance breaks ties", "deploy the release to production",
			[]string{"deploy-prod", "deploy-staging", "stem-heavy"}, TierPhrase, []string{"deploy"}},
		{"exact hit stays ahead of stem-only hits", "deploy release production",
			[]string{"deploy-prod", "deploy-staging", "stem-heavy"}, TierPhrase, []string{"deploy"}},
		{"relaxed from description and name", "my certificates are expiring", []string{"rotate-certificates"},
			TierRelaxed, []string{"certificates", "expiring"}},
		{"nothing related", "what is the weather in paris", nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := route(t, r, tt.text, nil)
			var names []string
			for _, m := range got {
				names = append(names, m.Name)
				if len(m.Hits) == 0 {
					t.Errorf("%s: no hits: every match must say what matched", m.Name)
				}
				if m.Tier == TierRelaxed && (m.Score != 0 || m.Relevance <= 0) {
					t.Errorf("%s: relaxed match with score %d relevance %v", m.Name, m.Score, m.Relevance)
				}
			}
			if !reflect.DeepEqual(names, tt.want) {
				t.Fatalf("got %v, want %v (%+v)", names, tt.want, got)
			}
			if len(got) > 0 && (got[0].Tier != tt.tier || !reflect.DeepEqual(got[0].Hits, tt.hits)) {
				t.Errorf("first match %+v, want tier %q hits %v", got[0], tt.tier, tt.hits)
			}
		})
	}
}

func TestRankedStemScore(t *testing.T) {
	r := newTest(t, rankedSkills, nil)
	got := route(t, r, "deploys releases productions", nil)
	if len(got) == 0 || got[0].Name != "stem-heavy" || got[0].Score != 3 || got[0].Relevance != 0 {
		t.Fatalf("got %+v, want stem-heavy first with score 3, alone in its tier (no relevance)", got)
	}
	if got[1].Relevance <= 0 || got[2].Relevance <= 0 || got[1].Relevance < got[2].Relevance {
		t.Errorf("tied deploy skills %+v, %+v: want relevances in descending order", got[1], got[2])
	}
	if got[1].Name != "deploy-prod" && got[1].Name != "deploy-staging" {
		t.Errorf("second %+v, want a deploy skill (stem of deploys)", got[1])
	}
}

func TestRouteEmptyAgent(t *testing.T) {
	r := newTest(t, nil, nil)
	for _, mode := range []Mode{Spec, Ranked} {
		if got := route(t, r, "deploy now", &Query{Mode: mode}); got == nil || len(got) != 0 {
			t.Errorf("%s: got %#v, want an empty slice", mode, got)
		}
	}
	if r.Info().Index != IndexNone {
		t.Errorf("info %+v, want index none", r.Info())
	}
}

func TestCloseAndConcurrency(t *testing.T) {
	r := newTest(t, rankedSkills, nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				mode := []Mode{Spec, Ranked}[i%2]
				if _, err := r.Route(context.Background(), "deploy the release", &Query{Mode: mode}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := r.Route(context.Background(), "deploy", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Route after Close: %v, want ErrClosed", err)
	}
}

// TestDirectRelevance checks that the relevance computed straight from
// the postings for some skills is, for each, the score a bleve search of
// the same disjunction over all skills gives it: the tie-break is bleve's
// relevance, whichever way the index was obtained.
func TestDirectRelevance(t *testing.T) {
	skills := genSkills(600)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opts *Options
		kind string
	}{
		{"memory", &Options{NoCache: true}, IndexMemory},
		{"cache-built", &Options{CacheDir: dir, ContentHash: "d1"}, IndexCacheBuilt},
		{"cache-hit", &Options{CacheDir: dir, ContentHash: "d1"}, IndexCacheHit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTest(t, skills, tc.opts)
			if r.Info().Index != tc.kind {
				t.Fatalf("index %s, want %s", r.Info().Index, tc.kind)
			}
			for _, text := range []string{
				"please search the latest report for the team",
				"deploy the ledger and audit every ticket",
				"trace",
				"sync sync sync the volume token order",
				"nothing here matches zebra",
			} {
				a := analyze(r.an, text, false)
				all, err := search(context.Background(), r.idx, relevanceQuery(a), len(skills))
				if err != nil {
					t.Fatal(err)
				}
				full := map[int]float64{}
				for _, s := range all {
					full[s.skill] = s.score
				}
				// Every tenth skill, in an order unrelated to ids, plus
				// skills the search did not find (relevance 0).
				var cands []candidate
				var which []int
				for i := len(skills) - 1; i >= 0; i -= 10 {
					cands = append(cands, candidate{skill: i, rel: -1})
					which = append(which, len(which))
				}
				r.scorer.relevanceOf(a.text, cands, which)
				found := 0
				for _, c := range cands {
					if math.Abs(c.rel-full[c.skill]) > 2e-9 {
						t.Errorf("%q, skill %d: direct relevance %v, bleve search %v", text, c.skill, c.rel, full[c.skill])
					}
					if c.rel > 0 {
						found++
					}
				}
				if text != "nothing here matches zebra" && found == 0 {
					t.Errorf("%q: no candidate has relevance; the test checks nothing", text)
				}
			}
		})
	}
}

// TestRank checks the tiered selection against a plain sort of the whole
// candidate list, for random tiers, relevances, orders and limits, with
// and without relevance, and that relevance is asked for exactly the
// members of shared tiers that reach into the limit.
func TestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var scratch rankScratch // reused, as a pooled tally's is
	for iter := 0; iter < 3000; iter++ {
		n := rng.IntN(150) + 1
		cands := make([]candidate, n)
		tiers := 4
		if iter%5 == 0 {
			tiers = 100 // past maxLinearTiers
		}
		for i, z := range rng.Perm(n) { // keys unique, in no order
			cands[i] = candidate{key: uint64(rng.IntN(tiers))<<32 | uint64(z)}
		}
		rels := make([]float64, n)
		for i := range rels {
			rels[i] = float64(rng.IntN(5)) / 2
		}
		byRel := iter%2 == 0
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortFunc(want, func(a, b int) int {
			ca, cb := cands[a], cands[b]
			if c := cmp.Compare(ca.key>>32, cb.key>>32); c != 0 || !byRel {
				return cmp.Or(c, cmp.Compare(ca.key, cb.key))
			}
			return cmp.Or(cmp.Compare(rels[b], rels[a]), cmp.Compare(ca.key, cb.key))
		})
		limit := rng.IntN(n + 2)
		if rng.IntN(4) == 0 {
			limit = 0
		}
		if limit > 0 && limit < n {
			want = want[:limit]
		}
		asked := map[int]bool{}
		got, err := rank(cands, limit, byRel, &scratch, func(which []int) error {
			for _, k := range which {
				if asked[k] {
					t.Fatalf("relevance asked twice for %d", k)
				}
				asked[k] = true
				cands[k].rel = rels[k]
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("limit %d, byRel %v, cands %+v:\ngot  %v\nwant %v", limit, byRel, cands, got, want)
		}
		if byRel {
			for _, k := range got {
				shared := 0
				for j := range cands {
					if cands[j].key>>32 == cands[k].key>>32 {
						shared++
					}
				}
				if shared > 1 && !asked[k] {
					t.Fatalf("candidate %d ranked by relevance that was never computed", k)
				}
			}
		}
	}
}

// TestRouteSlots: routes run at most one per processor; a route waiting
// for a slot gives up when its context ends instead of piling scratch up.
func TestRouteSlots(t *testing.T) {
	r := newTest(t, genSkills(20), nil)
	if cap(r.slots) != runtime.GOMAXPROCS(0) {
		t.Fatalf("%d route slots, want GOMAXPROCS = %d", cap(r.slots), runtime.GOMAXPROCS(0))
	}
	for range cap(r.slots) {
		r.slots <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.Route(ctx, "deploy the ledger", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("route with every slot taken: %v, want the context's deadline", err)
	}
	for range cap(r.slots) {
		<-r.slots
	}
	if _, err := r.Route(context.Background(), "deploy the ledger", nil); err != nil {
		t.Fatalf("route with slots free: %v", err)
	}
}

// evidenceSkills is an agent where body relevance alone picks the wrong
// skill for each request of TestRankedEvidence: the descriptions of the
// wrong ones repeat the request's words.
var evidenceSkills = []Skill{
	{Name: "list-files", Z: 1, Triggers: []string{"list", "ls"},
		Description: "List recent files: recent uploads, recent deploys, recent logs."},
	{Name: "list-users", Z: 2, Triggers: []string{"list", "who is"},
		Description: "List the users of the workspace."},
	{Name: "deploy-history", Z: 3, Triggers: []string{"deploys", "rollouts"},
		Description: "Show what shipped and when."},
	{Name: "renew-certs", Z: 4, Triggers: []string{"renew"},
		Description: "Rotate and renew keys; rotate keys; renew keys before they expire."},
	{Name: "rotate-keys", Z: 5, Triggers: []string{"rotate"},
		Description: "Replace credentials."},
	{Name: "invoice-summarizer", Z: 6, Triggers: []string{"summarize", "summary"},
		Description: "Summarize the invoice: invoice totals, invoice lines, invoice taxes."},
	{Name: "summarize-invoice", Z: 7, Triggers: []string{"summarize"},
		Description: "Totals and lines of one bill from a vendor, with due dates, payment terms and the account it was charged to."},
	{Name: "run-tests", Z: 8, Triggers: []string{"go test", "unit tests"},
		Description: "Run the test suite."},
	{Name: "commit-message", Z: 9, Triggers: []string{"commit message", "describe my changes"},
		Description: "Write the message for staged changes."},
	{Name: "check-health", Z: 10, Triggers: []string{"crashloop", "is it up"},
		Description: "Read the pods' state."},
	{Name: "send-mail", Z: 11, Triggers: []string{"message", "email"},
		Description: "Send an email."},
	{Name: "read-logs", Z: 0, Triggers: []string{"crashing", "stack trace"},
		Description: "Why pods crash: crash looping pods, looping crashes."},
}

// TestRankedEvidence pins the Ranked rules that order skills with equal
// phrase counts by evidence before relevance, and the name rule.
func TestRankedEvidence(t *testing.T) {
	r := newTest(t, evidenceSkills, nil)
	tests := []struct {
		name, text string
		first      string
		tier       string
		hits       []string
	}{
		// "list" is used by two skills, "deploys" by one.
		{"rare trigger beats a common verb", "list the recent deploys", "deploy-history", TierPhrase, []string{"deploys"}},
		// "renew" and "rotate" are equally rare; "keys" is rotate-keys' name.
		{"a name word outweighs an equal trigger", "renew or rotate the keys", "rotate-keys", TierPhrase, []string{"rotate"}},
		{"the whole name wins ties", "summarize the invoice", "summarize-invoice", TierPhrase, []string{"summarize"}},
		{"one word of a name names the skill", "commit", "commit-message", TierName, []string{"commit"}},
		{"a plural of a name word names it", "commits", "commit-message", TierName, []string{"commits"}},
		{"a short request of name words names it", "run the tests", "run-tests", TierName, []string{"run", "tests"}},
		// Spec's own answer (send-mail hits "message" as written) stays
		// ahead of the named skill.
		{"named skill after a trigger hit as written", "message", "send-mail", TierPhrase, []string{"message"}},
		// read-logs hits "crashing" through the stem of "crash" alone; the
		// compound accounts for both words.
		{"adjacent words meet a compound trigger", "crash-looping pods", "check-health", TierPhrase, []string{"crashloop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := route(t, r, tt.text, nil)
			if len(got) == 0 || got[0].Name != tt.first || got[0].Tier != tt.tier || !reflect.DeepEqual(got[0].Hits, tt.hits) {
				t.Fatalf("%q: got %+v, want %s first (%s, hits %v)", tt.text, got, tt.first, tt.tier, tt.hits)
			}
		})
	}
	if got := route(t, r, "message", nil); len(got) != 2 || got[1].Name != "commit-message" || got[1].Tier != TierName {
		t.Errorf("message: got %+v, want commit-message second, by name", got)
	}
	// The name rule needs every content word to be a name word.
	if got := route(t, r, "commit the release", nil); len(got) > 0 && got[0].Tier == TierName {
		t.Errorf("commit the release: got %+v, want no name match", got)
	}
}

// commandSkills have triggers that the requests of TestRelaxedCommand do
// not hit: only their commands and descriptions can route those requests.
var commandSkills = []Skill{
	{Name: "probe-url", Z: 1, Triggers: []string{"reachable", "tls handshake"},
		Description: "Check a URL's health as a client sees it.", Tool: "curl -sS -o /dev/null {url}", Inputs: []string{"url"}},
	{Name: "deploy-log", Z: 2, Triggers: []string{"what changed"},
		Description: "Find what shipped, and when.", Tool: "kubectl rollout history deployment/{service} -n {ns}", Inputs: []string{"service", "ns"}},
	{Name: "pod-state", Z: 3, Triggers: []string{"is it up"},
		Description: "Read each pod's state: Running, Pending, or CrashLoopBackOff when a container keeps dying.",
		Tool:        "kubectl get pods -n {ns}", Inputs: []string{"ns"}},
	{Name: "weather-free", Z: 4, Triggers: []string{"forecast"}, Description: "Project a metric forward."},
}

// TestRelaxedCommand pins what the relaxed tier reads besides triggers:
// the command's binary and subcommands, and camel-case identifiers of the
// description split into words.
func TestRelaxedCommand(t *testing.T) {
	r := newTest(t, commandSkills, nil)
	tests := []struct {
		text  string
		first string // "" = no match
		hits  []string
	}{
		// A binary of its own names probe-url by its command
		// (TestRankedCommand), ahead of the relaxed tier.
		{"curl the health endpoint", "probe-url", []string{"curl"}},
		{"show the rollout history of payments", "deploy-log", []string{"rollout", "history"}},
		{"payments pods keep crash-looping", "pod-state", []string{"pods", "keep", "crash", "looping"}},
		{"what is the weather in paris", "", nil},
		{"book a table for two", "", nil},
	}
	for _, tt := range tests {
		got := found(t, r, tt.text, nil)
		if tt.first == "" {
			if len(got) != 0 {
				t.Errorf("%q: got %+v, want nothing", tt.text, got)
			}
			continue
		}
		tier := TierRelaxed
		if tt.first == "probe-url" {
			tier = TierName
		}
		if len(got) == 0 || got[0].Name != tt.first || got[0].Tier != tier || !reflect.DeepEqual(got[0].Hits, tt.hits) {
			t.Errorf("%q: got %+v, want %s first, %s, hits %v", tt.text, got, tt.first, tier, tt.hits)
		}
	}
}

func TestToolCommand(t *testing.T) {
	for tool, want := range map[string]string{
		"kubectl rollout history deployment/{service} -n {namespace}": "kubectl rollout history",
		"/usr/bin/gh pr create --draft --base {base}":                 "gh pr create",
		"curl -sSv -o /dev/null {url}":                                "curl",
		"amtool silence add alertname={a}":                            "amtool silence add",
		"go test -count=1 -run {pattern} {packages}":                  "go test",
		"a b c d e f": "a b c d",
		"":            "",
	} {
		if got := toolCommand(tool); got != want {
			t.Errorf("toolCommand(%q) = %q, want %q", tool, got, want)
		}
	}
	for w, want := range map[string][]string{
		"CrashLoopBackOff": {"Crash", "Loop", "Back", "Off"},
		"HTTPServer":       {"HTTP", "Server"},
		"plain":            {"plain"},
		"KubePodNotReady":  {"Kube", "Pod", "Not", "Ready"},
	} {
		if got := camelParts(w); !reflect.DeepEqual(got, want) {
			t.Errorf("camelParts(%q) = %q, want %q", w, got, want)
		}
	}
}

// saidSkills have commands a request can say: a binary of their own
// (csvlook), a binary shared with another skill whose subcommands tell
// them apart (stripe customers list, stripe invoices list), and a binary
// that is an everyday word another skill triggers on (make).
var saidSkills = []Skill{
	{Name: "preview-file", Z: 1, Triggers: []string{"peek"}, Tool: "csvlook --max-rows={rows} -- {file}"},
	{Name: "lookup-customer", Z: 2, Triggers: []string{"look up"}, Tool: "stripe customers list --email={email}"},
	{Name: "billing-history", Z: 3, Triggers: []string{"invoices"}, Tool: "stripe invoices list --customer={customer}"},
	{Name: "build-site", Z: 4, Triggers: []string{"build"}, Tool: "make site"},
	{Name: "chart-metric", Z: 5, Triggers: []string{"make a chart"}, Description: "Draw a metric."},
}

// TestRankedCommand pins the command rule (collect.go): a request that
// says the words of a skill's command that no other command starts with
// names that skill.
func TestRankedCommand(t *testing.T) {
	r := newTest(t, saidSkills, nil)
	tests := []struct {
		text  string
		first string // "" = no command match first
		hits  []string
	}{
		{"csvlook events.csv", "preview-file", []string{"csvlook"}},
		// "stripe customers" is as far as the request must go.
		{"stripe customers list for ana@example.com", "lookup-customer", []string{"stripe", "customers"}},
		{"stripe customer lookup", "lookup-customer", []string{"stripe", "customer"}},
		// "stripe" alone is shared by two commands.
		{"what does stripe say about this card", "", nil},
		// The words must be adjacent, in order.
		{"list the customers we have in stripe", "", nil},
		// "make" is chart-metric's trigger word: not a command of one word.
		{"make breakfast", "", nil},
	}
	for _, tt := range tests {
		got := route(t, r, tt.text, nil)
		if tt.first == "" {
			if len(got) > 0 && got[0].Tier == TierName {
				t.Errorf("%q: got %+v, want no command match", tt.text, got)
			}
			continue
		}
		if len(got) == 0 || got[0].Name != tt.first || got[0].Tier != TierName || !reflect.DeepEqual(got[0].Hits, tt.hits) {
			t.Errorf("%q: got %+v, want %s first by its command, hits %v", tt.text, got, tt.first, tt.hits)
		}
	}
}

// TestAmericanSpelling pins the -ise/-ize folding behind stems: a British
// spelling in a request meets an American one in a trigger, in the phrase
// tier and in the relaxed tier's index alike.
func TestAmericanSpelling(t *testing.T) {
	for in, want := range map[string]string{
		"summarise": "summarize", "visualised": "visualized", "analyses": "analyzes",
		"normalisation": "normalization", "organisers": "organizers",
		"raise": "raise", "rise": "rise", "noise": "noise", "size": "size", "summarize": "summarize",
	} {
		if got := americanSpelling(in); got != want {
			t.Errorf("americanSpelling(%q) = %q, want %q", in, got, want)
		}
	}
	r := newTest(t, []Skill{
		{Name: "commit-message", Z: 1, Triggers: []string{"summarize staged changes"}},
		{Name: "chart-metric", Z: 2, Triggers: []string{"plot"}, Description: "Visualize a metric over time."},
	}, nil)
	if got := route(t, r, "summarise my staged changes", nil); len(got) == 0 || got[0].Name != "commit-message" || got[0].Tier != TierPhrase {
		t.Errorf("summarise my staged changes: got %+v, want commit-message by its phrase", got)
	}
	if got := route(t, r, "visualise the metric", nil); len(got) == 0 || got[0].Name != "chart-metric" || got[0].Tier != TierDescribed {
		t.Errorf("visualise the metric: got %+v, want chart-metric, described (its description's \"visualize a metric\")", got)
	}
}

// TestCommandTokens checks that the command rule reads a tool's command
// as toolCommand does, without building its string.
func TestCommandTokens(t *testing.T) {
	for _, tool := range []string{
		"kubectl rollout history deployment/{service} -n {namespace}",
		"/usr/bin/gh pr create --draft --base {base}",
		"curl -sSv -o /dev/null {url}", "amtool silence add alertname={a}",
		"go test -count=1 -run {pattern} {packages}", "golangci-lint run --fix={fix} -- {packages}",
		"a b c d e f", "  csvlook   --max-rows={rows} -- {file}", "", "Stripe Customers list",
	} {
		want := appendTokens(nil, toolCommand(tool))
		if len(want) > maxCommandWords {
			want = want[:maxCommandWords]
		}
		if got := appendCommandTokens(nil, tool); !slices.Equal(got, want) {
			t.Errorf("appendCommandTokens(%q) = %q, want %q", tool, got, want)
		}
	}
}

// challengeSkills: run-tests hits "a test goes red roughly one run in
// ten" only through the stems of its phrase "run tests"; flaky-test's
// triggers and description hold four of the request's words.
var challengeSkills = []Skill{
	{Name: "run-tests", Z: 1, Triggers: []string{"run tests", "go test"},
		Description: "Run the test suite of some packages."},
	{Name: "flaky-test", Z: 2, Triggers: []string{"flaky", "intermittent"},
		Description: "A test that goes red one run in ten and green the next: reproduce it roughly a hundred times."},
	{Name: "lint", Z: 3, Triggers: []string{"lint"}, Description: "Run the linters."},
}

// TestRankedChallenge pins the challenge (rankedRoute): a relaxed match
// that accounts for challengeWords request words goes ahead of a leader
// found through the stems of one phrase in a long request, and nothing
// else moves.
func TestRankedChallenge(t *testing.T) {
	r := newTest(t, challengeSkills, nil)
	tests := []struct {
		text, first, tier string
	}{
		{"a test goes red roughly one run in ten", "flaky-test", TierRelaxed},
		// Short: the phrase is the intent.
		{"test goes red each run", "run-tests", TierPhrase},
		// Hit as written ("run tests"): Spec's answer stays first.
		{"run tests and a test goes red roughly one run in ten", "run-tests", TierPhrase},
	}
	for _, tt := range tests {
		got := route(t, r, tt.text, nil)
		if len(got) == 0 || got[0].Name != tt.first || got[0].Tier != tt.tier {
			t.Errorf("%q: got %+v, want %s first (%s)", tt.text, got, tt.first, tt.tier)
		}
	}
	got := route(t, r, challengeSkills[0].Description, &Query{Limit: 1})
	if len(got) != 1 {
		t.Errorf("limit 1: got %+v, want one match", got)
	}
}

// TestRelaxedNamedFirst: among relaxed matches, a skill whose whole name
// the request says goes first, even when another skill's description
// shares more of the request's words; without its name said, relevance
// orders them.
func TestRelaxedNamedFirst(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "cirq", Z: 1, Description: "Run quantum circuits on Google hardware; to run a circuit on IBM quantum machines use qiskit instead, or its runtime service"},
		{Name: "qiskit", Z: 2, Description: "IBM quantum computing framework: circuits and the runtime service"},
		{Name: "tree-view", Z: 3, Description: "Draw a phylogenetic tree as a picture"},
		{Name: "tree-build", Z: 4, Description: "Build a phylogenetic tree from aligned sequences"},
	}, nil)
	tests := []struct{ text, first string }{
		{"run my circuit on IBM quantum with qiskit runtime", "qiskit"},
		{"run my circuit on IBM quantum hardware", "cirq"},
		{"I want a tree build from my phylogenetic data, then a picture", "tree-build"},
	}
	for _, tt := range tests {
		got := route(t, r, tt.text, nil)
		// Relaxed, or made sure by a pair of its description
		// (describedFirst): the order is the relaxed tier's.
		if len(got) == 0 || got[0].Name != tt.first || got[0].Tier != TierRelaxed && got[0].Tier != TierDescribed {
			t.Errorf("%q: got %s, want %s first, relaxed or described", tt.text, brief(got), tt.first)
		}
	}
	// The first request draws both; relevance alone puts cirq first.
	if got := route(t, r, tests[0].text, nil); len(got) < 2 {
		t.Errorf("%q: got %s, want both quantum skills", tests[0].text, brief(got))
	}
}

// TestRelaxedUntriggered: two description words are enough evidence for
// a skill without trigger phrases, not for one whose triggers all missed.
func TestRelaxedUntriggered(t *testing.T) {
	skills := []Skill{
		{Name: "scan-anonymizer", Z: 1, Description: "Read and anonymize DICOM medical image headers"},
		{Name: "notes", Z: 2, Description: "Keep meeting notes tidy"},
	}
	text := "strip the patient names from these dicom headers"
	if got := route(t, newTest(t, skills, nil), text, nil); len(got) == 0 || got[0].Name != "scan-anonymizer" || got[0].Tier != TierRelaxed {
		t.Errorf("no triggers: got %s, want scan-anonymizer, relaxed", brief(got))
	}
	skills[0].Triggers = []string{"anonymize a scan"}
	if got := found(t, newTest(t, skills, nil), text, nil); len(got) != 0 {
		t.Errorf("with triggers that miss: got %s, want nothing", brief(got))
	}
	o := &Options{RelaxedEvidenceUntriggered: DefaultRelaxedEvidence}
	skills[0].Triggers = nil
	if got := found(t, newTest(t, skills, o), text, nil); len(got) != 0 {
		t.Errorf("untriggered bar raised to %v: got %s, want nothing", DefaultRelaxedEvidence, brief(got))
	}
}

// TestOneWordNameIsItsTrigger: a skill named by one word that is also its
// own trigger gains nothing more when the request says that word: the
// name and the phrase hit are one piece of evidence, not two, and the
// more specific trigger of another skill decides.
func TestOneWordNameIsItsTrigger(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "verify", Z: 1, Triggers: []string{"verify", "gate"}},
		{Name: "check-signature", Z: 2, Triggers: []string{"verify", "signature"}},
		{Name: "attest", Z: 3, Triggers: []string{"attest", "provenance"}},
		{Name: "run-tests", Z: 4, Triggers: []string{"tests"}},
		{Name: "lint", Z: 5, Triggers: []string{"tests", "style"}},
	}, nil)
	// "verify" is two skills' trigger, "provenance" one's: before, the
	// skill named verify came first because its whole name was said.
	got := route(t, r, "produce provenance for the artifact so people can verify where it came from", nil)
	if len(got) == 0 || got[0].Name != "attest" {
		t.Errorf("got %+v, want attest first (provenance is the rarer trigger)", got)
	}
	// A name of several words said in full still counts: "tests" hits
	// both skills alike, and run-tests' whole name is said.
	got = route(t, r, "run the tests again", nil)
	if len(got) == 0 || got[0].Name != "run-tests" {
		t.Errorf("got %+v, want run-tests first (its whole name is said)", got)
	}
}
