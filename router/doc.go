// Package router scores request text against an agent's skills
// (docs/architecture.md §5). It does not read agent files: callers hand it
// []Skill.
//
// Two modes. Spec is exactly the reference routing (docs/format.md §10):
// tokens are maximal runs of Unicode letters and digits, lowercased; a
// trigger phrase hits when all its tokens are in the request (a phrase
// without tokens never hits); score is the number of phrases hit; order is
// score descending, then z. Ranked (the default) matches phrases on Porter
// stems as well (British -ise spellings folded into -ize first, and
// adjacent request words as one: "crash-looping" meets "crashloop"),
// keeps every skill with an exact (Spec) phrase hit ahead of skills that
// only hit through stems, puts first within each the skills the request
// names: whose name a short request is made of ("tests" names run-tests)
// or whose command it says ("csvlook events.csv"; commands.go); tier
// "name" when no phrase hit), orders by phrases hit, then by whether the
// request says the whole name, then by evidence (the inverse skill frequency
// of the request words the hit phrases and the name account for: a word few
// skills use outweighs one many use; names.go), then by bleve BM25
// relevance, then z. When nothing hits or is named it returns relaxed
// matches found by relevance alone, which must contain at least two request
// words and enough weighted evidence (Options.RelaxedEvidence, or the
// lower RelaxedEvidenceUntriggered for a skill without triggers); a skill
// whose whole name the request says leads them. Only there, Ranked reads
// a domain thesaurus (thesaurus.txt, synonyms.go) for the request words
// the index lacks: a skill whose trigger or name the request covers with
// one such word read as a synonym ("ship" for "deploy") is offered as a
// relaxed match, and the synonyms join the relaxed search and its
// evidence, each counting less than the words the user wrote. A leader
// found only through the stems of one phrase in a long request is
// challenged by the best relaxed match, which goes first when it accounts
// for four of the request's words and is more relevant (routeRanked).
//
// Phrase matching runs on an in-memory phrase index (phrases.go): equal
// token sets are stored once and filed under their rarest token, so a
// route visits only what it can hit; hits are tallied per skill in pooled
// scratch (collect.go), and only the score tiers that reach into the
// limit are ordered (rank.go). Relevance comes from a bleve scorch index
// with one field in which each skill field's terms count by weight
// (triggers ×3, name ×2, the tool's binary and subcommands ×2,
// description with camel-case words split, input names; see
// analysis.go). It is computed only for the tied skills whose order it
// decides, straight from the postings of a snapshot the Router holds, with
// bleve's own term searchers and scorer (relevance.go): the same score a
// bleve search would give, without its per-search machinery. A router
// built cold with Options.Background takes it instead from term
// statistics gathered by one pass of the index field's analyzer
// (termstats.go): the same numbers, so it routes while bleve builds
// (background.go).
//
// Index lifecycle: agents up to Options.MemoryThreshold skills are indexed
// in memory. Larger ones, given Options.ContentHash, use an on-disk cache
// entry per content hash and SchemaVersion, built with bleve.NewBuilder in a
// temporary directory beside it and renamed into place, then reopened read
// only. The entry also holds the phrase index, so warm starts neither
// re-tokenise nor re-stem. A manifest with the schema, hash, skill count, a
// fingerprint of the skills and a CRC-32C of every file is checked before
// an entry is trusted; anything that does not check out is rebuilt, and a
// cache that cannot be used at all falls back to memory (Info says why).
// Build fills the cache ahead of time for `agent3md index`; Prepare opens
// an entry from its content hash alone, for New to adopt once the skills
// are known (a server opens it while the agent file loads).
//
// A Router is safe for concurrent use; Close waits for routes in flight.
package router
