package router

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	bsearch "github.com/blevesearch/bleve/v2/search"
)

// The term statistics are saved in a cache entry beside the bleve index
// (stats.bin), written when the entry is built, so a warm start reads
// them in one pass over a few bytes a posting instead of walking bleve's
// dictionary and postings (statsFromIndex), which took longer than the
// rest of a warm open. decodeStats checks every posting against the
// skills, so no file can make relevance index out of range. The file, in
// codec.go's form:
//
//	magic "A3TS"
//	avgLength (float), skills n
//	the K distinct lengthNorm values (K, then K floats), then per skill
//	  the position of its value among them (a field's length takes few
//	  values: a byte a skill where a float takes eight)
//	the vocabulary (appendTerms)
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

// writeStats saves ts to path.
func writeStats(path string, ts *termStats) error {
	return os.WriteFile(path, encodeStats(ts), 0o644)
}

// encodeStats lays ts out as the file holds it.
func encodeStats(ts *termStats) []byte {
	buf := make([]byte, 0, 1024+2*len(ts.lengthNorm)+3*len(ts.post))
	buf = append(buf, statsMagic...)
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(ts.avgLength))
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
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	for _, v := range ts.lengthNorm {
		buf = binary.AppendUvarint(buf, pos[math.Float64bits(v)])
	}
	buf = appendTerms(buf, ts.ids)
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

// readStats reads the term statistics of skills skills from path.
func readStats(path string, skills int) (*termStats, error) {
	data, err := readListFile(path, errBadStats)
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
	d := newListReader(data, statsMagic, errBadStats)
	ts := &termStats{avgLength: d.float()}
	n := d.count(1, "skills")
	if d.err == nil && n != skills {
		return nil, fmt.Errorf("%w: statistics of %d skills, want %d", errBadStats, n, skills)
	}
	if d.err == nil && !(ts.avgLength >= 0 && ts.avgLength <= math.MaxUint32) {
		return nil, fmt.Errorf("%w: average field length %v", errBadStats, ts.avgLength)
	}
	values := make([]float64, d.count(8, "length normalisations"))
	for k := range values {
		// 1 - b + b·length/avgLength; +Inf for a skill no term is in.
		values[k] = d.float()
		if d.err == nil && !(values[k] >= 1-bsearch.BM25_b) {
			return nil, fmt.Errorf("%w: length normalisation %v", errBadStats, values[k])
		}
	}
	ts.lengthNorm = make([]float64, n)
	for s := range ts.lengthNorm {
		k := d.uvarint()
		if d.err == nil && k >= uint64(len(values)) {
			return nil, fmt.Errorf("%w: skill %d has length normalisation %d of %d", errBadStats, s, k, len(values))
		}
		if d.err != nil {
			return nil, d.err
		}
		ts.lengthNorm[s] = values[k]
	}
	ts.ids = d.terms()
	statsPostings(d, ts, n)
	if err := d.end("postings"); err != nil {
		return nil, err
	}
	ts.setIDF()
	return ts, nil
}

// statsPostings reads each term's document frequency, then its postings
// into ts.start and ts.post.
func statsPostings(d *listReader, ts *termStats, skills int) {
	if d.err != nil {
		return
	}
	nt := len(ts.ids)
	ts.start = make([]uint32, nt+1)
	total := 0
	for t := range nt {
		// Two bytes a posting at least.
		total += d.count(2, "postings")
		if d.err == nil && total > len(d.data)/2 {
			d.fail("%d postings in the %d bytes left", total, len(d.data))
		}
		if d.err != nil {
			return
		}
		ts.start[t+1] = uint32(total)
	}
	ts.post = make([]posting, total)
	for t := range nt {
		skill := uint64(0)
		for k := ts.start[t]; k < ts.start[t+1]; k++ {
			gap, freq := d.uvarint(), d.uvarint()
			skill += gap
			switch {
			case d.err != nil:
				return
			case gap == 0 && k > ts.start[t] || gap >= uint64(skills) || skill >= uint64(skills):
				d.fail("a posting of term %d is not a skill after the last", t)
			case freq == 0 || freq > math.MaxUint32:
				d.fail("a posting of term %d has frequency %d", t, freq)
			}
			if d.err != nil {
				return
			}
			ts.post[k] = posting{uint32(skill), uint32(freq)}
		}
	}
}
