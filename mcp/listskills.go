package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
	"github.com/google/jsonschema-go/jsonschema"
)

// list_skills pages: a client written for the reference reads the whole
// catalog from one answer, and an agent small enough for one page still
// gets exactly that. A 100,000-skill catalog in one answer is an 85 MB
// line, past what real clients read (the TypeScript SDK's stdio reader
// stops at 10 MB), so larger agents are answered a page at a time.
const (
	// defaultListLimit is the most skills a page holds when the call names
	// no limit; such a page also fits hostAnswerChars (budget.go).
	defaultListLimit = 200
	// maxListLimit is the largest page a call may ask for.
	maxListLimit = 1000
	// listOverhead is what a page keeps free of its answer budget for the
	// envelope, the second text block and the cursor.
	listOverhead = 1024
	// listNoteChars is what a default page keeps free of hostAnswerChars
	// for what a host shows besides the entries: the second text block
	// (which may quote the query, at most maxQueryWords*64 bytes) and the
	// structured copy's total, matched and cursor.
	listNoteChars = 3 * 1024
	// maxQueryWords bounds list_skills' query: every word is matched
	// against every skill's name and triggers, so a query of a million
	// words must be refused, not scanned.
	maxQueryWords = 32
)

// listSkillsTool is list_skills: the catalog, a page at a time.
var listSkillsTool = newTool[listSkillsInput, listSkillsOutput](toolSpec[listSkillsInput]{
	name:  toolListSkills,
	title: "List skills",
	desc: "List the agent's skills as a JSON array in source order: each skill's name, z, trigger phrases, cost tag and command template (null when absent), then its description, typed inputs and dependencies. " +
		"Without limit, one call returns the skills that fit in 40,000 characters (at most 200); with limit, at most that many (up to 1000). When there are more, a second text block and structuredContent give the total and the cursor of the next page. " +
		"Pass query to list only the skills whose name or trigger phrases contain every word of it. To find the skill for a request, route_skill is cheaper.",
	schema: func(p map[string]*jsonschema.Schema) {
		p["limit"].Minimum, p["limit"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(maxListLimit))
	},
	cache: cacheAnswers,
	run:   (*server).listSkills,
})

// listSkillsInput is list_skills' arguments.
type listSkillsInput struct {
	Query  string `json:"query,omitempty" jsonschema:"only skills whose name or trigger phrases contain every word of this, ignoring case"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"at most this many skills (1 to 1000); absent: as many as fit in 40,000 characters, at most 200"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous answer, to get the next page (with the same query)"`
}

// listSkillsOutput is list_skills' structured answer, written around the
// page's array bytes (listPage.outcome).
type listSkillsOutput struct {
	Skills     []listEntry `json:"skills"`
	Total      int         `json:"total"`
	Matched    int         `json:"matched"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

// listEntry is one skill of list_skills: the reference server's five fields
// first and in its order (cost and tool null when absent), richer fields
// after.
type listEntry struct {
	Name        string         `json:"name"`
	Z           float64        `json:"z"`
	Triggers    []string       `json:"triggers"`
	Cost        *string        `json:"cost"`
	Tool        *string        `json:"tool"`
	Description string         `json:"description"`
	Inputs      []catalogInput `json:"inputs"`
	Deps        []string       `json:"deps"`
}

type catalogInput struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// newListEntry builds skill i's entry from the scan, in place.
func newListEntry(snap loader.Snapshot, i int) listEntry {
	s, pl := snap.Skill(i), snap.Plane(i)
	e := listEntry{
		Name: s.Name, Z: s.Z, Triggers: nonNil(s.Triggers), Description: pl.Description,
		Inputs: make([]catalogInput, len(s.Inputs)), Deps: snap.DepNames(i),
	}
	// As the reference reads them: cost as written whenever the attribute
	// is present, the tool trimmed and null when blank.
	if cost, ok := pl.Attributes.Get("cost"); ok {
		e.Cost = &cost
	}
	if tool := strings.TrimSpace(s.Tool); s.HasTool && tool != "" {
		e.Tool = &tool
	}
	for k, in := range s.Inputs {
		e.Inputs[k] = catalogInput{Name: in.Name, Type: in.Type, Required: !in.Optional}
	}
	return e
}

// listRequest is list_skills' arguments, read and checked.
type listRequest struct {
	query []string // lowercased words; empty matches every skill
	raw   string   // the query as given
	limit int
	// explicit is set when the call named a limit: the page is then
	// bounded by the answer bound alone, not by hostAnswerChars.
	explicit bool
	start    int    // first skill index to consider (from the cursor)
	fp       string // binds a cursor to the file version and the query
	cursor   bool
}

// parseListRequest reads query, limit and cursor; a problem is returned as
// a message for the model.
func parseListRequest(snap loader.Snapshot, in *listSkillsInput) (*listRequest, string) {
	req := &listRequest{raw: in.Query, limit: defaultListLimit}
	if len(req.raw) > maxQueryWords*64 {
		return nil, fmt.Sprintf("argument \"query\" is %d bytes; a query is a few words of a skill's name or triggers (at most %d words): to find the skill for a request, use route_skill", len(req.raw), maxQueryWords)
	}
	req.query = strings.Fields(strings.ToLower(req.raw))
	if len(req.query) > maxQueryWords {
		return nil, fmt.Sprintf("argument \"query\" has %d words, more than the %d a query may hold: pass a few words of a skill's name or triggers, or use route_skill to find the skill for a request", len(req.query), maxQueryWords)
	}
	if in.Limit != nil {
		if n := *in.Limit; n < 1 || n > maxListLimit {
			return nil, fmt.Sprintf("argument \"limit\" must be between 1 and %d, got number %d", maxListLimit, n)
		}
		req.limit, req.explicit = *in.Limit, true
	}
	sum := ""
	if cat := snap.Catalog(); cat != nil {
		sum = cat.SHA256
	}
	h := sha256.Sum256([]byte(sum + "\x00" + strings.Join(req.query, " ")))
	req.fp = hex.EncodeToString(h[:6])
	cur := in.Cursor
	if cur == "" {
		return req, ""
	}
	req.cursor = true
	start, ok := decodeCursor(cursorListSkills, cur, req.fp)
	if !ok || start > snap.Len() {
		return nil, fmt.Sprintf("argument \"cursor\" %q is not a cursor of this list: pass the nextCursor of the previous list_skills answer with the same query; "+
			"a cursor also expires when the agent file changes. Call list_skills without cursor to start again.", textclip.Bytes(cur, 60))
	}
	req.start = start
	return req, ""
}

func encodeListCursor(next int, fp string) string { return encodeCursor(cursorListSkills, next, fp) }

// matches reports whether every query word occurs in skill i's name or in
// one of its trigger phrases, ignoring case.
func (req *listRequest) matches(snap loader.Snapshot, i int) bool {
	if len(req.query) == 0 {
		return true
	}
	s := snap.Skill(i)
	for _, w := range req.query {
		found := containsFold(s.Name, w)
		for _, t := range s.Triggers {
			if found {
				break
			}
			found = containsFold(t, w)
		}
		if !found {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains the lowercase word w, ignoring
// case, without allocating for the common all-lowercase s.
func containsFold(s, w string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return strings.Contains(strings.ToLower(s), w)
		}
	}
	return strings.Contains(s, w)
}

// listPage is one page being built: the array bytes (the first text
// block, and the structured content's skills), what the page holds, and
// where it stops.
type listPage struct {
	arr     bytes.Buffer
	scratch bytes.Buffer  // one entry being encoded
	enc     *json.Encoder // writes to scratch
	budget  int           // bytes the page may take in the answer
	used    int           // bytes it takes so far
	// chars and charBudget count what a host may show of the entries (0:
	// no such bound, the call named a limit).
	chars, charBudget int
	shown             int
	next              int // where the next page starts
	more              bool
	matched           int // skills matching the query, in the whole catalog
	before            int // matching skills before the page
}

// listSkills answers one page of the catalog. Entries are built only for
// the skills shown and encoded once: the array is the first text block as
// it is and the structured content's skills as raw JSON, so the answer
// costs about twice the page, whatever the catalog's size.
func (s *server) listSkills(ctx context.Context, v *generation, in *listSkillsInput) (*toolOutcome, error) {
	snap := v.agent.Snapshot()
	req, problem := parseListRequest(snap, in)
	if problem != "" {
		return &toolOutcome{text: problem, isError: true}, nil
	}
	page, err := s.buildListPage(ctx, snap, req)
	if err != nil {
		return nil, err
	}
	if page.tooBig != nil {
		return page.tooBig, nil
	}
	return page.outcome(snap.Len(), req), nil
}

// builtPage is a listPage, or the answer when one skill's entry alone
// passes the answer bound.
type builtPage struct {
	*listPage
	tooBig *toolOutcome
}

func (s *server) buildListPage(ctx context.Context, snap loader.Snapshot, req *listRequest) (builtPage, error) {
	p := &listPage{next: snap.Len(), budget: s.maxAnswerBytes() - listOverhead, used: 2}
	if !req.explicit {
		p.charBudget, p.chars = hostAnswerChars-listNoteChars, 4
	}
	p.enc = json.NewEncoder(&p.scratch)
	p.enc.SetEscapeHTML(false)
	p.arr.WriteByte('[')
	n, from := snap.Len(), 0
	all := len(req.query) == 0
	if all { // every skill before the cursor matches: skip them
		from, p.before, p.matched = req.start, req.start, req.start
	}
	full := false
	for i := from; i < n; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return builtPage{}, ctx.Err()
		}
		if !req.matches(snap, i) {
			continue
		}
		p.matched++
		switch {
		case i < req.start:
			p.before++
			continue
		case full:
			p.more = true
		default:
			fits, size, err := p.add(snap, i)
			switch {
			case err != nil:
				return builtPage{}, err
			case fits && p.shown == req.limit:
				full, p.next = true, i+1
			case !fits && p.shown == 0 && size > 0:
				return builtPage{tooBig: entryTooBig(snap.Skill(i).Name, size, s.maxAnswerBytes(), encodeListCursor(i+1, req.fp))}, nil
			case !fits && p.shown == 0:
				return builtPage{tooBig: entryTooLong(snap.Skill(i).Name, p.entryChars(), encodeListCursor(i, req.fp), encodeListCursor(i+1, req.fp))}, nil
			case !fits:
				full, p.next, p.more = true, i, true
			}
		}
		if p.more && all {
			break // the count is n: no need to look further
		}
	}
	if all {
		p.matched = n
	}
	p.arr.WriteByte(']')
	return builtPage{listPage: p}, nil
}

// add appends skill i's entry when the page's budgets have room for it;
// it returns whether it did, and, when the answer bound is what the entry
// passes, the size the page would have had with it (0 when it is the
// characters a host shows).
func (p *listPage) add(snap loader.Snapshot, i int) (fits bool, size int, err error) {
	p.scratch.Reset()
	if err := p.enc.Encode(newListEntry(snap, i)); err != nil {
		return false, 0, fmt.Errorf("encoding skill %q: %w", snap.Skill(i).Name, err)
	}
	e := bytes.TrimSuffix(p.scratch.Bytes(), []byte("\n"))
	// The entry is sent twice: escaped in the text block, and as raw JSON
	// in the structured content (which costs no more). A host shows the
	// text or the structured copy; both count, for hosts that show both.
	cost, chars := 2*(encodedStringLen(e)+1), 2*(len(e)+1)
	if p.used+cost > p.budget {
		return false, p.used + cost, nil
	}
	if p.charBudget > 0 && p.chars+chars > p.charBudget {
		return false, 0, nil
	}
	if p.shown > 0 {
		p.arr.WriteByte(',')
	}
	p.arr.Write(e)
	p.used += cost
	p.chars += chars
	p.shown++
	return true, p.used, nil
}

// entryChars is what a host shows of the entry add last refused, counted
// as add counts it.
func (p *listPage) entryChars() int {
	return 2 * (len(bytes.TrimSuffix(p.scratch.Bytes(), []byte("\n"))) + 1)
}

// entryTooBig is list_skills' answer when one skill's entry alone passes
// the answer bound: say which, and how to go on past it.
func entryTooBig(name string, size, limit int, cursor string) *toolOutcome {
	return &toolOutcome{isError: true, text: fmt.Sprintf(
		"skill %q alone makes a list_skills answer of about %d bytes, over this server's %d-byte bound on one answer (--max-answer-bytes): "+
			"read it with get_skill, and list the skills after it with cursor %q", name, size, limit, cursor)}
}

// entryTooLong is list_skills' answer when one skill's entry alone passes
// what a default page holds: say which, how to get it anyway, and how to
// go on past it.
func entryTooLong(name string, chars int, at, after string) *toolOutcome {
	return &toolOutcome{isError: true, text: fmt.Sprintf(
		"skill %q alone makes a list_skills page of about %d characters, more than the %d a page holds when no limit is given: "+
			"read it with get_skill, or list it anyway with limit 1 and cursor %q; the skills after it start at cursor %q", name, chars, hostAnswerChars, at, after)}
}

// outcome is the page as a tool answer: the bare array first, so clients
// written for the reference read it unchanged, and, when the catalog does
// not fit in this one answer, a short second block saying how to go on.
// The structured content, {"skills":[…],"total":N,"matched":M,
// "nextCursor":"…"}, is written around the same array bytes.
func (p *listPage) outcome(total int, req *listRequest) *toolOutcome {
	next := ""
	if p.more {
		next = encodeListCursor(p.next, req.fp)
	}
	var b bytes.Buffer
	b.Grow(p.arr.Len() + 128)
	b.WriteString(`{"skills":`)
	b.Write(p.arr.Bytes())
	fmt.Fprintf(&b, `,"total":%d,"matched":%d`, total, p.matched)
	if next != "" {
		fmt.Fprintf(&b, `,"nextCursor":%q`, next) // base64url: nothing to escape
	}
	b.WriteByte('}')
	out := &toolOutcome{text: p.arr.String(), structured: json.RawMessage(b.Bytes())}
	if p.more || req.cursor || len(req.query) > 0 {
		out.extra = []string{p.note(total, req, next)}
	}
	return out
}

// note says what the page holds and how to get the next one.
func (p *listPage) note(total int, req *listRequest, next string) string {
	var b strings.Builder
	switch {
	case p.matched == 0:
		fmt.Fprintf(&b, "No skill's name or trigger phrases contain every word of %q (the agent has %d skills).", req.raw, total)
		return b.String()
	case p.shown == 0:
		b.WriteString("No more skills after this cursor")
	case p.shown == 1:
		fmt.Fprintf(&b, "Skill %d", p.before+1)
	default:
		fmt.Fprintf(&b, "Skills %d-%d", p.before+1, p.before+p.shown)
	}
	if len(req.query) > 0 {
		fmt.Fprintf(&b, " of the %d whose name or trigger phrases match %q (the agent has %d skills).", p.matched, req.raw, total)
	} else {
		fmt.Fprintf(&b, " of %d.", total)
	}
	if next != "" {
		fmt.Fprintf(&b, " Next page: call list_skills with cursor %q", next)
		if len(req.query) > 0 {
			b.WriteString(" and the same query")
		}
		b.WriteString("; or pass query to narrow the list, or use route_skill to find the skill for a request.")
	}
	return b.String()
}
