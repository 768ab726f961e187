// Package router scores request text against an agent's skills
// (docs/architecture.md §5). It does not read agent files: callers hand it
// their skills as a Source ([]Skill, or the loader's catalog through
// ForAgent), and bodies through Bodies.
//
// # Two modes
//
// Spec is exactly the reference routing (docs/format.md §10): tokens are
// maximal runs of Unicode letters and digits, lowercased; a trigger phrase
// hits when all its tokens are in the request (a phrase without tokens
// never hits); score is the number of phrases hit; order is score
// descending, then z. Nothing below applies to it.
//
// Ranked (the default) answers in three parts (Match.Tier). Sure matches
// (Sure), what run --exec may act on: a phrase hit (as written or through
// stems), a skill the request names, or one whose description's words it
// says and no other skill's. Then, up to the limit, guesses: relaxed
// matches, by relevance and an evidence bar, then runner-ups, the best of
// a plain BM25 ranking over names and descriptions, so the answer never
// leaves out what a plain search shows, and, while the list is short of
// the limit, the skills the one engine finds through stems, triggers or
// bodies (relevanceFill). Every guess carries its fit
// (Match.Fit) and is confirmed before anything runs.
//
// # Stages
//
// A ranked route (rankedRoute, ranked.go) runs five stages, each in its
// own file: read the request (request.go: tokens, unspaced runs cut at
// the agent's words, stems, vocabulary ids), collect the skills its
// phrases, names and commands find (collect.go), weigh those whose order
// their tier leaves open (weigh.go), order them (order.go), and fill the
// list with relaxed matches (relaxed.go) and runner-ups (runnersup.go).
// Relevance is computed in relevance.go.
//
// # Signals
//
// Sure matches are ordered by keys, first key first; relaxed ones by
// relevance, and kept by evidence. Each signal is named where it is
// combined: rankedKey and rank order the sure matches (weigh.go,
// order.go), relaxedSearchWith orders and keeps the relaxed ones
// (relaxed.go), and relaxedEvidence.enough is the bar. What each moved
// on the evaluation sets when it was added is in examples/README.md.
//
//	signal              reads                                        weight / role
//	exact phrase        trigger tokens as written (Spec's answer)    1st key: never demoted by the rest
//	stems               Porter stems, -ise as -ize, joined pairs     a hit below exact ones
//	named               a short request made of name words, or the   2nd key within each of those (tier
//	                    words that start one skill's command         name when no phrase hit)
//	phrases hit         number of trigger phrases hit                3rd key
//	whole name          the request says the name, words in order    4th key
//	evidence            inverse skill frequency of the words hit     5th key (weigh.go)
//	relevance           BM25 over one field (relevance.go): triggers 6th key; relaxed order
//	                    ×3, name ×2, tool ×2, description, inputs ×1
//	challenge           a stem-only one-phrase leader in a long      best relaxed goes first at 1.5× its
//	                    request                                      relevance and 4 words
//	typing slips        words one slip from an agent word            re-route once, when nothing hit
//	synonyms            thesaurus.txt, for words the index lacks     relaxed only: boost 0.25, evidence ×0.5
//	scripts             CJK runs cut at agent words; pairs; the      read before anything else
//	                    agent's Chinese script
//	relaxed evidence    field terms the request holds: trigger 3,    bar 3 (2 without triggers), and two
//	                    name 2, tool 2, description 1, input 0.5     request words
//	named first         a relaxed skill whose whole name is said     first among relaxed matches
//	relaxed after sure  relaxed matches after the sure ones          fill the limit; evidence bar only
//	described           two adjacent content words of one skill's    makes the relaxed tier's first sure
//	                    name or description, no other skill's, one   (tier name or described); never
//	                    not among the commonest (collect.go)         reorders
//	runner-ups          plain BM25, name + description, English      after sure and relaxed, to the limit;
//	                    words and single Chinese characters          only a skill holding stop words alone
//	                    (relevance.go, runnersup.go)                 is left out, unless the answer has no
//	                                                                 sure or relaxed match and the plain
//	                                                                 ranking over every character lists it
//	                                                                 within the limit: it closes the answer,
//	                                                                 showing those characters
//	relevance fill      the one engine's relevance (stems, triggers,     after the runner-ups, to the limit, as
//	                    tools, bodies) of skills the answer lacks        runner-ups; no evidence bar (runnersup.go)
//	fit                 idf share of the request's words a skill     shown on every guess; orders nothing
//	                    holds (plainBM25.fit)
//	body relevance      each body's distinct terms (body.go)         +0.5 × its BM25 to relaxed relevance
//	body evidence       a body word no other field holds             1 (1.5 if at most two bodies hold it);
//	                                                                 a word if not common English
//	partial phrase      all informative words of one trigger         waives the two-word minimum
//	                    (relaxed.go); a lone one only if no other
//	                    skill's indexed fields hold it
//	body pairs          an unspaced body cut at the agent's words    pairs across an agent word's edge are
//	                    before it is read in pairs (body.go); the    not indexed; one stretch is one
//	                    request's pairs of one stretch of body text  request word
//	character pairs     adjacent characters of a Chinese request and     Chinese runner-ups: the pair ranking and
//	                    of names, descriptions, triggers, never across   the plain ranking over every character,
//	                    a word the segmenter found (runnersup.go); the    fused by reciprocal rank (fuseRanks)
//	                    relaxed tier reads the request cut the same way
//	commonest chars     wordlist.CommonHan: 180 characters from jieba's left out of fit's words and the pair
//	                    dictionary (的, 了, 么, 是)                       ranking's evidence, like stop words
//	question frames     a request asking about a subject: what it is,    its sure matches become relaxed, in the
//	                    how it works or compares, what it is worth or    same order (order.go); a frame about
//	                    called, a recommendation, who made it and when,  the asker's own things (my, this, 我, a
//	                    what a trade earns or a product costs, its       number, a file) is a task
//	                    history, an exam on it, a paper's subject
//	                    (order.go), both scripts
//	lone trigger        a one-word trigger that is an English word, in   its sure match becomes relaxed, in
//	                    a request of four words or more, or of three     place, unless another request word is
//	                    when among English's commonest and said first    its skill's (name, description)
//	                    (a verb's slot) (order.go); a tool's name is
//	                    evidence alone; in a shorter question, when
//	                    every other word is an English word no skill
//	                    holds (strangersOnly)
//	condition clause    a clause saying when, not what: "if …,",         matches whose hits lie in it alone go
//	                    ", if …", …的话, 如果…， (order.go)                  behind the first the main clause holds,
//	                                                                     relaxed
//
// # Where the work goes
//
// Phrase matching runs on an in-memory phrase index (phrases.go) that a
// route visits only where it can hit; hits are tallied in pooled scratch
// (collect.go), and only the tiers reaching into the limit are ordered.
//
// Relevance is computed in one place, relevance.go: BM25 over the one
// bleve field in which each skill field's terms count by their weight
// (analysis.go), from the term statistics read out of bleve's index
// (termstats.go), with bleve's formula and summing order
// (TestRelevanceLikeBleveSearch). It runs here rather than in bleve's
// searchers because a route needs the relevance of a few tied skills or
// of the few holding a rare word, where bleve's per-search setup would
// be most of the route. Built cold with Options.Background, a router
// gathers the same statistics by one pass of the field's analyzer
// (TestStatsFromBleve) and routes while bleve builds (background.go):
// sure matches at once; a route needing the relaxed tier or a challenge
// waits for the build; sure matches get no relaxed ones after them, and
// above MemoryThreshold skills no route gets runner-ups until it ends.
//
// Runner-ups and fit read the plain ranking (plainBM25), not the one
// engine: only that ranking keeps the promise never to leave out what a
// plain search shows; it is also every evaluation set's baseline
// (TestRoutingBaseline).
//
// Bodies are read once, while the index builds, into a body index of
// their own (body.go), never into the bleve field and never
// as text: the catalog stays body-less.
//
// # Index lifecycle
//
// Agents up to Options.MemoryThreshold skills are indexed in memory.
// Larger ones, given Options.ContentHash, use an on-disk cache entry per
// content hash and SchemaVersion, built with bleve.NewBuilder in a
// temporary directory beside it and renamed into place, then reopened read
// only. The entry also holds the phrase index, the body index and the
// index field's term statistics (termstats.go), so warm starts
// neither re-tokenise, read a body, nor walk bleve's postings. A manifest
// with the schema, hash, skill count, a fingerprint of the skills (bodies
// by their checksums) and a CRC-32C of every file is checked before an
// entry is trusted; anything that does not check out is rebuilt, and a
// cache that cannot be used at all falls back to memory (Info says why).
// Prepare opens an entry from its content hash alone, for New to adopt
// once the skills are known (a server opens it while the agent file loads).
//
// A Router is safe for concurrent use; Close waits for routes in flight.
package router
