package router

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/agent3md/agent3md/internal/listfile"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// The term statistics relevance.go computes from are bleve's, read out of
// its index once built (statsFromIndex, twice as fast as analysing again)
// or, before it is (background.go), gathered by the field's analyzer
// (buildTermStats); the two agree (TestStatsFromBleve).

// termStats are the BM25 statistics of the index field.
type termStats struct {
	ids   map[string]uint32 // term → term id
	start []uint32          // term t's postings are post[start[t]:start[t+1]], by skill
	post  []posting
	// avgLength is bleve's BM25 average field length: the dictionary's
	// size (not the token count) over the number of skills, rounded up.
	avgLength float64
	// lengthNorm is, per skill, 1 - b + b·fieldLength/avgLength, with the
	// field length bleve derives from its norm.
	lengthNorm []float64
	// idf is each term's (idfOf), absentIDF that of a term no skill holds.
	idf       []float64
	absentIDF float64
}

type posting struct {
	skill uint32
	freq  uint32
}

// buildTermStats gathers the statistics with the field's analyzer.
func buildTermStats(ctx context.Context, in *corpus) (*termStats, error) {
	// The analyzer the mapping gives the index field, as bleve reads it.
	an := in.m.AnalyzerNamed(in.m.AnalyzerNameForPath(indexField))
	if an == nil {
		return nil, fmt.Errorf("router: the index field's analyzer is not registered")
	}
	n := in.skills.Len()
	length := make([]uint32, n)
	ids := make(map[string]uint32, 1024)
	var byTerm [][]posting
	for i := range n {
		if i%progressEvery == progressEvery-1 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s := in.skills.Skill(i)
		text, _ := document(&s)[indexField].(string)
		toks := an.Analyze([]byte(text))
		length[i] = uint32(len(toks))
		// The repeat filter emits copies sharing one term: one lookup a run.
		var prev []byte
		var id uint32
		for _, tok := range toks {
			if len(prev) == 0 || len(tok.Term) != len(prev) || &tok.Term[0] != &prev[0] {
				var ok bool
				if id, ok = ids[string(tok.Term)]; !ok {
					id = uint32(len(byTerm))
					ids[string(tok.Term)] = id
					byTerm = append(byTerm, nil)
				}
				prev = tok.Term
			}
			if p := byTerm[id]; len(p) > 0 && p[len(p)-1].skill == uint32(i) {
				p[len(p)-1].freq++
			} else {
				byTerm[id] = append(p, posting{uint32(i), 1})
			}
		}
	}
	ts := &termStats{ids: ids, start: make([]uint32, 0, len(byTerm)+1)}
	for _, p := range byTerm {
		ts.start = append(ts.start, uint32(len(ts.post)))
		ts.post = append(ts.post, p...)
	}
	ts.start = append(ts.start, uint32(len(ts.post)))
	// A zap segment's norm is 1/sqrt(length) rounded to float32.
	ts.normalize(len(ts.ids), n, func(s int) float64 {
		if length[s] == 0 {
			return 0 // as bleve reads a skill it holds no posting of
		}
		return float64(float32(1.0 / math.Sqrt(float64(length[s]))))
	})
	return ts, nil
}

// normalize sets avgLength from the field's dictionary size (cardinality)
// and lengthNorm from each skill's norm, as bleve's BM25 does.
func (ts *termStats) normalize(cardinality, n int, norm func(skill int) float64) {
	ts.lengthNorm = make([]float64, n)
	if n == 0 {
		return
	}
	ts.avgLength = math.Ceil(float64(cardinality) / float64(n))
	for s := range ts.lengthNorm {
		nm := norm(s)
		fieldLength := 1 / (nm * nm)
		ts.lengthNorm[s] = 1 - bsearch.BM25_b + (bsearch.BM25_b * fieldLength / ts.avgLength)
	}
	ts.setIDF()
}

// setIDF works out each term's idf from its postings.
func (ts *termStats) setIDF() {
	ts.idf = make([]float64, len(ts.start)-1)
	for t := range ts.idf {
		ts.idf[t] = ts.idfOf(int(ts.start[t+1] - ts.start[t]))
	}
	ts.absentIDF = ts.idfOf(0)
}

// statsFromIndex reads the term statistics of n skills out of bleve's
// index: the field's dictionary first (so the postings are allocated
// once), each term's postings with frequency and norm, the cardinality.
func statsFromIndex(ctx context.Context, idx bleve.Index, n int) (ts *termStats, err error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("router: opening the index for scoring: %w", err)
	}
	snap, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("router: opening the index for scoring: %w", err)
	}
	defer func() {
		if cerr := snap.Close(); err == nil && cerr != nil {
			ts, err = nil, fmt.Errorf("router: reading the index statistics: %w", cerr)
		}
	}()
	skillOf, err := skillsByDoc(ctx, snap, n)
	if err != nil {
		return nil, err
	}
	terms, total, err := readDict(snap)
	if err != nil {
		return nil, err
	}
	ts = &termStats{ids: make(map[string]uint32, len(terms)), start: make([]uint32, 0, len(terms)+1), post: make([]posting, 0, total)}
	norms := make([]float64, n)
	var doc index.TermFieldDoc
	for k, term := range terms {
		if k%progressEvery == progressEvery-1 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		tr, err := snap.TermFieldReader(ctx, []byte(term), indexField, true, true, false)
		if err != nil {
			return nil, fmt.Errorf("router: reading postings of %q: %w", term, err)
		}
		from := len(ts.post)
		for {
			d, err := tr.Next(&doc)
			if err != nil {
				tr.Close()
				return nil, fmt.Errorf("router: reading postings of %q: %w", term, err)
			}
			if d == nil {
				break
			}
			s := skillOf(d.ID)
			if s < 0 {
				tr.Close()
				return nil, fmt.Errorf("router: the index holds a document that is no skill; rebuild it (agent3md index)")
			}
			ts.post = append(ts.post, posting{uint32(s), uint32(d.Freq)})
			norms[s] = d.Norm
		}
		tr.Close()
		slices.SortFunc(ts.post[from:], func(a, b posting) int { return cmp.Compare(a.skill, b.skill) })
		ts.ids[term] = uint32(len(ts.start))
		ts.start = append(ts.start, uint32(from))
	}
	ts.start = append(ts.start, uint32(len(ts.post)))
	card, err := snap.(index.BM25Reader).FieldCardinality(indexField)
	if err != nil {
		return nil, fmt.Errorf("router: reading the index statistics: %w", err)
	}
	ts.normalize(card, n, func(s int) float64 { return norms[s] })
	return ts, nil
}

// readDict returns the field's terms and their total postings.
func readDict(snap index.IndexReader) (terms []string, total int, err error) {
	dict, err := snap.FieldDict(indexField)
	if err != nil {
		return nil, 0, fmt.Errorf("router: reading the index vocabulary: %w", err)
	}
	defer dict.Close()
	terms = make([]string, 0, dict.Cardinality())
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, 0, fmt.Errorf("router: reading the index vocabulary: %w", err)
		}
		if e == nil {
			return terms, total, nil
		}
		terms = append(terms, e.Term)
		total += int(e.Count)
	}
}

// skillsByDoc maps snap's internal ids to skills (-1: none): scorch's
// are 8-byte big-endian document numbers, which index a slice.
func skillsByDoc(ctx context.Context, snap index.IndexReader, n int) (func(index.IndexInternalID) int, error) {
	byNum := make([]int32, 0, n)
	for i := 0; i < n; i++ {
		if i%progressEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		id, err := snap.InternalID(strconv.Itoa(i))
		if err != nil {
			return nil, fmt.Errorf("router: looking up skill %d in the index: %w", i, err)
		}
		if len(id) != 8 || binary.BigEndian.Uint64(id) >= uint64(4*n+1024) {
			return nil, fmt.Errorf("router: skill %d is missing from the index, or has an internal id (%x) of another kind than scorch's; rebuild it (agent3md index)", i, []byte(id))
		}
		for num := binary.BigEndian.Uint64(id); uint64(len(byNum)) <= num; {
			byNum = append(byNum, -1)
		}
		byNum[binary.BigEndian.Uint64(id)] = int32(i)
	}
	return func(id index.IndexInternalID) int {
		if len(id) != 8 || binary.BigEndian.Uint64(id) >= uint64(len(byNum)) {
			return -1
		}
		return int(byNum[binary.BigEndian.Uint64(id)])
	}, nil
}

// The term statistics are saved in a cache entry (stats.bin), so a warm
// start reads a few bytes a posting instead of walking bleve's postings,
// which took longer than the rest of a warm open. decodeStats checks
// every posting against the skills. The file, in internal/listfile's form:
//
//	magic "A3TS"
//	avgLength (float), skills n
//	the K distinct lengthNorm values (K, then K floats), then per skill
//	  the position of its value among them (a field's length takes few
//	  values: a byte a skill where a float takes eight)
//	the vocabulary (listfile.AppendTerms)
//	T document frequencies df
//	per term, in id order, df postings: the skill's gap from the term's
//	  previous posting (the first: the skill itself), then its frequency
//
// and nothing after. idf is worked out again from df and n on reading.
const (
	statsName  = "stats.bin"
	statsMagic = "A3TS"
)

var errBadStats = errors.New("term statistics file is damaged")

func writeStats(path string, ts *termStats) error {
	return os.WriteFile(path, encodeStats(ts), 0o644)
}

// encodeStats lays ts out as the file holds it.
func encodeStats(ts *termStats) []byte {
	buf := make([]byte, 0, 1024+2*len(ts.lengthNorm)+3*len(ts.post))
	buf = append(buf, statsMagic...)
	buf = listfile.AppendFloat(buf, ts.avgLength)
	buf = binary.AppendUvarint(buf, uint64(len(ts.lengthNorm)))
	var values []float64
	pos := make(map[uint64]uint64)
	for _, v := range ts.lengthNorm {
		if _, ok := pos[math.Float64bits(v)]; !ok {
			pos[math.Float64bits(v)] = uint64(len(values))
			values = append(values, v)
		}
	}
	buf = binary.AppendUvarint(buf, uint64(len(values)))
	for _, v := range values {
		buf = listfile.AppendFloat(buf, v)
	}
	for _, v := range ts.lengthNorm {
		buf = binary.AppendUvarint(buf, pos[math.Float64bits(v)])
	}
	buf = listfile.AppendTerms(buf, ts.ids)
	for id := range len(ts.ids) {
		buf = binary.AppendUvarint(buf, uint64(ts.start[id+1]-ts.start[id]))
	}
	for id := range len(ts.ids) {
		prev := uint32(0)
		for _, p := range ts.post[ts.start[id]:ts.start[id+1]] {
			buf = binary.AppendUvarint(buf, uint64(p.skill-prev))
			buf = binary.AppendUvarint(buf, uint64(p.freq))
			prev = p.skill
		}
	}
	return buf
}

func readStats(path string, skills int) (*termStats, error) {
	data, err := listfile.Read(path, errBadStats)
	if err != nil {
		return nil, err
	}
	ts, err := decodeStats(data, skills)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ts, nil
}

// decodeStats decodes the statistics of skills skills from data (see
// statsName for the layout), checking that they fit: n is skills, every
// length normalisation a BM25 one, terms distinct, every term's postings
// df ascending skills below n, each with a frequency, and no byte left
// over.
func decodeStats(data []byte, skills int) (*termStats, error) {
	d := listfile.NewReader(data, statsMagic, errBadStats)
	ts := &termStats{avgLength: d.Float()}
	n := d.Count(1, "skills")
	if d.Err() == nil && n != skills {
		return nil, fmt.Errorf("%w: statistics of %d skills, want %d", errBadStats, n, skills)
	}
	if d.Err() == nil && !(ts.avgLength >= 0 && ts.avgLength <= math.MaxUint32) {
		return nil, fmt.Errorf("%w: average field length %v", errBadStats, ts.avgLength)
	}
	values := make([]float64, d.Count(8, "length normalisations"))
	for k := range values {
		// 1 - b + b·length/avgLength; +Inf for a skill no term is in.
		values[k] = d.Float()
		if d.Err() == nil && !(values[k] >= 1-bsearch.BM25_b) {
			return nil, fmt.Errorf("%w: length normalisation %v", errBadStats, values[k])
		}
	}
	ts.lengthNorm = make([]float64, n)
	for s := range ts.lengthNorm {
		k := d.Uvarint()
		if d.Err() == nil && k >= uint64(len(values)) {
			return nil, fmt.Errorf("%w: skill %d has length normalisation %d of %d", errBadStats, s, k, len(values))
		}
		if d.Err() != nil {
			return nil, d.Err()
		}
		ts.lengthNorm[s] = values[k]
	}
	ts.ids = d.Terms()
	statsPostings(d, ts, n)
	if err := d.End("postings"); err != nil {
		return nil, err
	}
	ts.setIDF()
	return ts, nil
}

// statsPostings reads each term's document frequency, then its postings
// into ts.start and ts.post.
func statsPostings(d *listfile.Reader, ts *termStats, skills int) {
	if d.Err() != nil {
		return
	}
	nt := len(ts.ids)
	ts.start = make([]uint32, nt+1)
	total := 0
	for t := range nt {
		// Two bytes a posting at least.
		total += d.Count(2, "postings")
		if d.Err() == nil && total > d.Left()/2 {
			d.Fail("%d postings in the %d bytes left", total, d.Left())
		}
		if d.Err() != nil {
			return
		}
		ts.start[t+1] = uint32(total)
	}
	ts.post = make([]posting, total)
	for t := range nt {
		skill := uint64(0)
		for k := ts.start[t]; k < ts.start[t+1]; k++ {
			gap, freq := d.Uvarint(), d.Uvarint()
			skill += gap
			switch {
			case d.Err() != nil:
				return
			case gap == 0 && k > ts.start[t] || gap >= uint64(skills) || skill >= uint64(skills):
				d.Fail("a posting of term %d is not a skill after the last", t)
			case freq == 0 || freq > math.MaxUint32:
				d.Fail("a posting of term %d has frequency %d", t, freq)
			}
			if d.Err() != nil {
				return
			}
			ts.post[k] = posting{uint32(skill), uint32(freq)}
		}
	}
}
