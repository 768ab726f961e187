package router

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// WordEvidence is what one request word is to one match: the skill's
// fields that hold it and its share of the request's weight (its idf
// over the summed idf of the request's words, the unit Match.Fit adds).
type WordEvidence struct {
	Word   string   `json:"word"`
	Fields []string `json:"fields"` // "name", "description", "trigger"; empty: none holds it
	Weight float64  `json:"weight"`
}

// Explained is a match with its evidence: why it has its tier, each
// request word (stop words aside) with the fields that hold it, and, for
// a guess, the trigger phrases the request came closest to.
type Explained struct {
	Match
	Why   string         `json:"why"`
	Words []WordEvidence `json:"words"`
	Gaps  []TriggerGap   `json:"gaps,omitempty"`
}

// TriggerGap is a trigger phrase of a guessed skill that shares a word
// with the request, and the words the request lacks for it to hit.
type TriggerGap struct {
	Trigger string   `json:"trigger"`
	Missing []string `json:"missing"`
}

const maxGaps = 3 // trigger gaps one match lists, the closest first

// Explain routes text as Route does and says, for each match, why it has
// its tier and which request words (as fit reads them) its fields hold.
func (r *Router) Explain(ctx context.Context, text string, q *Query) ([]Explained, error) {
	ms, err := r.Route(ctx, text, q)
	if err != nil {
		return nil, err
	}
	p := r.plainIndex()
	pq := (&plainText{text: text}).read(p)
	out := make([]Explained, len(ms))
	for i, m := range ms {
		out[i] = Explained{Match: m, Why: why(m)}
		s := r.skillAt(m)
		if s < 0 {
			continue
		}
		sk := r.src.Skill(s)
		fields := [][]string{baselineTokens(nil, sk.Name), baselineTokens(nil, sk.Description), baselineTokens(nil, strings.Join(sk.Triggers, " "))}
		for k, t := range pq.toks {
			w := WordEvidence{Word: t, Fields: []string{}}
			for k, name := range []string{"name", "description", "trigger"} {
				if slices.Contains(fields[k], t) {
					w.Fields = append(w.Fields, name)
				}
			}
			if pq.total > 0 {
				w.Weight = roundRelevance(pq.words[k].idf / pq.total)
			}
			out[i].Words = append(out[i].Words, w)
		}
		if !Sure(m.Tier) {
			out[i].Gaps = triggerGaps(sk.Triggers, pq.toks)
		}
	}
	return out, nil
}

// triggerGaps lists, fewest missing first, at most maxGaps triggers that
// share a word with the request (requestWords) and what each lacks.
func triggerGaps(triggers, request []string) []TriggerGap {
	var gaps []TriggerGap
	for _, tr := range triggers {
		toks := requestWords(tr) // stop words aside: ranked routing reads phrases without them
		shared := false
		var missing []string
		for _, t := range toks {
			switch {
			case slices.Contains(request, t):
				shared = true
			case !slices.Contains(missing, t):
				missing = append(missing, t)
			}
		}
		if shared && len(missing) > 0 {
			gaps = append(gaps, TriggerGap{Trigger: tr, Missing: missing})
		}
	}
	slices.SortStableFunc(gaps, func(a, b TriggerGap) int { return len(a.Missing) - len(b.Missing) })
	return gaps[:min(len(gaps), maxGaps)]
}

// why says in a sentence why m has its tier.
func why(m Match) string {
	hits := strings.Join(m.Hits, ", ")
	switch m.Tier {
	case TierPhrase:
		return fmt.Sprintf("sure: %d trigger phrase(s) hit (%s)", m.Score, hits)
	case TierName:
		return "sure: the request names it (" + hits + ")"
	case TierDescribed:
		return "sure: the request says words of its description no other skill's holds (" + hits + ")"
	case TierRelaxed:
		if m.Score > 0 {
			return fmt.Sprintf("a guess: trigger phrase(s) hit (%s), but the request asks about the subject, not for the task", hits)
		}
		return fmt.Sprintf("a guess: its name, description, body or tool hold request words (%s), relevance %.3g, no phrase hit", hits, m.Relevance)
	case TierRunnerUp:
		return fmt.Sprintf("a guess: next in the plain ranking over names and descriptions (BM25 %.3g)", m.Relevance)
	}
	return m.Tier
}
