package agentfile

// Default bounds. They are generous enough for any real agent: a
// 100,000-skill synthetic agent (~110 MB) scans with all of them.
const (
	DefaultMaxBytes            = 512 << 20 // whole file
	DefaultMaxLineBytes        = 1 << 20   // one line
	DefaultMaxFrontmatterLines = 10_000
	DefaultMaxPlanes           = 250_000
	// MaxPlanesCeiling is the most planes any limit allows (see MaxPlanes).
	MaxPlanesCeiling           = 1 << 30
	DefaultMaxAttributes       = 64        // per @plane directive
	DefaultMaxAttributeBytes   = 64 << 10  // one attribute value
	DefaultMaxDescriptionBytes = 4 << 10   // body prefix read for the description
	DefaultMaxLinks            = 1_000_000 // [[z=…]] links in the whole file
)

// Ceilings: the largest value each limit may be set to. Past them a bound
// stops protecting anything (a line or value is held whole in memory; plane
// and link positions are kept in 32-bit indexes), so a front end should
// refuse larger settings rather than pass them on.
const (
	MaxBytesCeiling            = 1 << 40 // 1 TiB
	MaxLineBytesCeiling        = 1 << 30 // one line is buffered whole
	MaxFrontmatterLinesCeiling = 1 << 20
	MaxAttributesCeiling       = 1 << 16
	MaxAttributeBytesCeiling   = MaxLineBytesCeiling // a value lies within one line
	MaxDescriptionBytesCeiling = 1 << 20
	MaxLinksCeiling            = 1 << 30
)

// Limits bounds what a scan will accept. A zero field means its default.
type Limits struct {
	// MaxBytes bounds the whole input (default DefaultMaxBytes; flag --max-bytes).
	MaxBytes int64
	// MaxLineBytes bounds one line, terminator excluded (default
	// DefaultMaxLineBytes; flag --max-line-bytes).
	MaxLineBytes int
	// MaxFrontmatterLines bounds the frontmatter block (default
	// DefaultMaxFrontmatterLines; flag --max-frontmatter-lines).
	MaxFrontmatterLines int
	// MaxPlanes bounds the number of planes (default DefaultMaxPlanes; flag
	// --max-planes). Values above MaxPlanesCeiling count as it: plane and
	// skill positions are kept in 32-bit indexes.
	MaxPlanes int
	// MaxAttributes bounds the key=value tokens of one directive (default
	// DefaultMaxAttributes; flag --max-attributes).
	MaxAttributes int
	// MaxAttributeBytes bounds one attribute value (default
	// DefaultMaxAttributeBytes; flag --max-attribute-bytes).
	MaxAttributeBytes int
	// MaxDescriptionBytes bounds the body prefix kept to extract a plane's
	// description (default DefaultMaxDescriptionBytes; flag
	// --max-description-bytes).
	MaxDescriptionBytes int
	// MaxLinks bounds the [[z=…]] links of the whole document (default
	// DefaultMaxLinks; flag --max-links). Each link is kept in the catalog,
	// so without it a file of nothing but links would cost some twenty
	// times its size in memory.
	MaxLinks int
}

// Effective returns the limits in force: l with every zero field set to its
// default.
func (l Limits) Effective() Limits { return l.withDefaults() }

// withDefaults returns l with every zero field set to its default.
func (l *Limits) withDefaults() Limits {
	var out Limits
	if l != nil {
		out = *l
	}
	if out.MaxBytes <= 0 {
		out.MaxBytes = DefaultMaxBytes
	}
	if out.MaxLineBytes <= 0 {
		out.MaxLineBytes = DefaultMaxLineBytes
	}
	if out.MaxFrontmatterLines <= 0 {
		out.MaxFrontmatterLines = DefaultMaxFrontmatterLines
	}
	if out.MaxPlanes <= 0 {
		out.MaxPlanes = DefaultMaxPlanes
	}
	out.MaxPlanes = min(out.MaxPlanes, MaxPlanesCeiling)
	if out.MaxAttributes <= 0 {
		out.MaxAttributes = DefaultMaxAttributes
	}
	if out.MaxAttributeBytes <= 0 {
		out.MaxAttributeBytes = DefaultMaxAttributeBytes
	}
	if out.MaxDescriptionBytes <= 0 {
		out.MaxDescriptionBytes = DefaultMaxDescriptionBytes
	}
	if out.MaxLinks <= 0 {
		out.MaxLinks = DefaultMaxLinks
	}
	return out
}

// Options configures Parse. A nil *Options means defaults.
type Options struct {
	// File names the input in error messages (default "<input>").
	File string
	// Limits bounds the scan; zero fields take their defaults.
	Limits Limits
	// Planes, when positive, stops the scan once that many planes are
	// read: at the directive that would open the next one. The catalog is
	// then marked Partial. Default 0: read the whole document. A server
	// uses it to learn an agent's name and identity from the head of a
	// large file before the rest is scanned.
	Planes int
}
