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
// rest of a warm open. The manifest's checksums cover the file;
// decodeStats still checks every count against the bytes left before it
// allocates, and every posting against the skills, so no file can make
// it allocate more than its own size allows or make relevance index out
// of range.
//
// The file, integers as unsigned LEB128 varints (binary.AppendUvarint),
// floats as IEEE 754 bits in eight little-endian bytes:
//
//	magic "A3TS"
//	avgLength (float), skills n
//	the K distinct lengthNorm values (K, then K floats), then per skill
//	  the position of its value among them (a field's length takes few
//	  values: a byte a skill where a float takes eight)
//	terms T, then T term lengths, then the T terms' bytes back to back,
//	  in term id order
//	T document frequencies df
//	per term, in id order, df postings: the skill's gap from the term's
//	  previous posting (the first: the skill itself), then its frequency
//
// and nothing after. idf is worked out again from df and n on reading.
const (
	statsName  = "stats.bin"
	statsMagic = "A3TS"
	// maxStatsSize bounds the file read into memory: far past any
	// agent's (3.4 MB at 100,000 skills, about two bytes a posting), and
	// few enough postings for uint32 offsets.
	maxStatsSize = 1 << 30
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
	terms := make([]string, len(ts.ids))
	for t, id := range ts.ids {
		terms[id] = t
	}
	buf = binary.AppendUvarint(buf, uint64(len(terms)))
	for _, t := range terms {
		buf = binary.AppendUvarint(buf, uint64(len(t)))
	}
	for _, t := range terms {
		buf = append(buf, t...)
	}
	for id := range terms {
		buf = binary.AppendUvarint(buf, uint64(ts.start[id+1]-ts.start[id]))
	}
	for id := range terms {
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxStatsSize {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", errBadStats, path, fi.Size(), maxStatsSize)
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	ts, err := decodeStats(data, skills)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ts, nil
}

// statsDecoder reads a statistics file held in memory.
type statsDecoder struct {
	data []byte
	err  error
}

// uvarint reads one varint.
func (d *statsDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data)
	if n <= 0 {
		d.err = fmt.Errorf("%w: a number is cut off or overlong", errBadStats)
		return 0
	}
	d.data = d.data[n:]
	return v
}

// count reads a list's length, whose items take at least unit bytes
// each: a length the bytes left cannot hold is damage, found before
// anything is allocated for it.
func (d *statsDecoder) count(unit int, what string) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.data)/unit) {
		d.err = fmt.Errorf("%w: %d %s in the %d bytes left", errBadStats, n, what, len(d.data))
		return 0
	}
	return int(n)
}

// float reads one float.
func (d *statsDecoder) float() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.data) < 8 {
		d.err = fmt.Errorf("%w: a number is cut off", errBadStats)
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.data))
	d.data = d.data[8:]
	return v
}

// decodeStats decodes the statistics of skills skills from data (see
// statsName for the layout), checking that they fit: n is skills, every
// length normalisation a BM25 one, terms distinct, every term's postings
// df ascending skills below n, each with a frequency, and no byte left
// over.
func decodeStats(data []byte, skills int) (*termStats, error) {
	if len(data) < len(statsMagic) || string(data[:len(statsMagic)]) != statsMagic {
		return nil, fmt.Errorf("%w: bad magic", errBadStats)
	}
	d := &statsDecoder{data: data[len(statsMagic):]}
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
	d.terms(ts)
	d.postings(ts, n)
	if d.err == nil && len(d.data) > 0 {
		d.err = fmt.Errorf("%w: %d bytes after the postings", errBadStats, len(d.data))
	}
	if d.err != nil {
		return nil, d.err
	}
	ts.setIDF()
	return ts, nil
}

// terms reads the vocabulary into ts.ids: the terms' lengths, then their
// bytes, taken as one string the terms share.
func (d *statsDecoder) terms(ts *termStats) {
	nt := d.count(1, "terms")
	if d.err != nil {
		return
	}
	lengths := make([]int, nt)
	total := 0
	for t := range lengths {
		lengths[t] = d.count(1, "term bytes")
		total += lengths[t]
		if d.err == nil && total > len(d.data) {
			d.err = fmt.Errorf("%w: terms of %d bytes in the %d left", errBadStats, total, len(d.data))
		}
		if d.err != nil {
			return
		}
	}
	blob := string(d.data[:total])
	d.data = d.data[total:]
	ts.ids = make(map[string]uint32, nt)
	at := 0
	for t, l := range lengths {
		ts.ids[blob[at:at+l]] = uint32(t)
		at += l
	}
	if len(ts.ids) != nt {
		d.err = fmt.Errorf("%w: a term is listed twice", errBadStats)
	}
}

// postings reads each term's document frequency, then its postings into
// ts.start and ts.post.
func (d *statsDecoder) postings(ts *termStats, skills int) {
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
			d.err = fmt.Errorf("%w: %d postings in the %d bytes left", errBadStats, total, len(d.data))
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
				d.err = fmt.Errorf("%w: a posting of term %d is not a skill after the last", errBadStats, t)
			case freq == 0 || freq > math.MaxUint32:
				d.err = fmt.Errorf("%w: a posting of term %d has frequency %d", errBadStats, t, freq)
			}
			if d.err != nil {
				return
			}
			ts.post[k] = posting{uint32(skill), uint32(freq)}
		}
	}
}
