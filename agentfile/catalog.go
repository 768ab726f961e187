package agentfile

import "github.com/agent3md/agent3md/internal/hashidx"

// Span is a half-open byte range [Start, End) of the file as it is on disk
// (before CRLF normalisation, after nothing: offsets count the BOM too).
type Span struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// Len is the number of bytes the span covers.
func (s Span) Len() int64 { return s.End - s.Start }

// Catalog is the body-less result of a scan: everything about a document
// except the plane bodies themselves, which stay in the file and are reached
// through each plane's Body span. Its memory grows with the number of planes,
// not with the size of their bodies. A Catalog is immutable after Parse and
// safe for concurrent reads.
type Catalog struct {
	// Version is the frontmatter's 3md value (quotes removed).
	Version string
	// Axis is the frontmatter axis, trimmed and lowercased; "layer" by default.
	Axis string
	// Title is the frontmatter title; HasTitle tells an empty title from none.
	Title    string
	HasTitle bool
	// TitleLine is the line that set Title (0 when there is none).
	TitleLine int
	// Metadata holds every other frontmatter key with its case preserved
	// (a repeated key: last wins). MetadataLines maps each key to the line
	// that set it.
	Metadata      map[string]string
	MetadataLines map[string]int
	// Preamble is the span of the text between the frontmatter and the first
	// plane, trimmed of leading and trailing blank lines; HasPreamble is false
	// when that text is empty (or became the single implicit plane).
	Preamble     Span
	HasPreamble  bool
	PreambleLine int
	// PreambleCRC is the CRC-32C of the normalised preamble.
	PreambleCRC uint32
	// Planes in source order.
	Planes []Plane
	// Size is the number of bytes scanned; Lines the number of lines.
	Size  int64
	Lines int
	// SHA256 is the hex SHA-256 of the file's bytes as scanned: the content
	// hash that keys caches derived from this file. Empty when Partial.
	SHA256 string
	// Partial is set when Options.Planes stopped the scan before the end:
	// Planes holds only the first planes, Size and Lines count what was
	// read, and nothing about the rest of the file (errors included) is
	// known; a link to a plane past the stop has TargetExists false.
	Partial bool
	// Notices are what the scanner saw that the format accepts but a
	// person almost certainly did not mean (NUL bytes, invalid UTF-8, lone
	// carriage returns, YAML-style frontmatter), in line order, at most
	// maxNotices of them; NoticesDropped counts the ones past that.
	Notices        []Notice
	NoticesDropped int

	byZ hashidx.Index[float64] // z -> index in Planes
}

// Plane is one plane of the document without its body.
type Plane struct {
	// Z is the plane's position; ZText is its source spelling.
	Z     float64
	ZText string
	// Label is the label attribute; HasLabel tells label="" from no label.
	Label    string
	HasLabel bool
	// X and Y are the optional coordinates.
	X, Y       float64
	HasX, HasY bool
	// Attributes holds every other directive key (lowercased), values as
	// strings as written, sorted by key. A value that is one quoted span
	// is unquoted (backslash pairs reversed); any other value is kept
	// verbatim, quotes included.
	Attributes Attrs
	// Line is the 1-based line of the @plane directive; 0 for the implicit
	// plane of a document without directives.
	Line int
	// Implicit is true for the single plane made from a directive-less
	// document's preamble.
	Implicit bool
	// Body is the span of the body in the file, trimmed of leading and
	// trailing blank lines; BodyLine is the line the body starts on (0 when
	// the body is empty).
	Body     Span
	BodyLine int
	// CRC is the CRC-32C (Castagnoli) of the normalised body (CRLF -> LF).
	CRC uint32
	// Links are this plane's cross-plane links in body order.
	Links []Link
	// Description is a short plain-text summary: the first paragraph after a
	// leading heading, taken from a bounded prefix of the body.
	Description string
}

// Link is a cross-plane reference [[z=T]] or [[z=T|text]] in a body.
type Link struct {
	SourceZ float64
	TargetZ float64
	// Target is the target's source spelling ("3", "1.5", "2e1").
	Target string
	// Text is the link text; HasText tells [[z=1|]] (empty text) from [[z=1]].
	Text    string
	HasText bool
	// Line is the 1-based line the link is on.
	Line int
	// TargetExists reports whether a plane with a numerically equal z exists.
	TargetExists bool
}

// IntegerTarget reports whether the link is an agent-layer dependency link:
// one whose target is written with digits only ([[z=<digits>]]).
func (l Link) IntegerTarget() bool {
	if l.Target == "" {
		return false
	}
	for i := 0; i < len(l.Target); i++ {
		if l.Target[i] < '0' || l.Target[i] > '9' {
			return false
		}
	}
	return true
}

// PlaneIndex returns the index in Planes of the plane at z, or -1.
func (c *Catalog) PlaneIndex(z float64) int {
	i, _ := c.byZ.Find(z)
	return i
}

// AllLinks returns every cross-plane link of the base format in document
// order, with TargetExists filled in. It is built on demand from the
// planes' own Links, so a large catalog does not hold each link twice.
func (c *Catalog) AllLinks() []Link {
	var out []Link
	for i := range c.Planes {
		out = append(out, c.Planes[i].Links...)
	}
	return out
}
