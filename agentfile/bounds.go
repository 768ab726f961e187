package agentfile

// Bound is one field of Limits as a setting a person changes: its flag
// name (the one a LimitError names, without "--"), what it bounds, its
// default and ceiling, and the field itself. agent3md declares a flag per
// Bound, checks each against [1, Ceiling] and lists them in 'agent3md
// help limits', so a bound added here is a flag everywhere.
type Bound struct {
	Name    string // the flag without "--": "max-bytes"
	Usage   string
	Default int64
	Ceiling int64
	Int64   *int64 // exactly one of Int64 and Int points into the Limits
	Int     *int
}

// Value is the bound's current value in its Limits.
func (b Bound) Value() int64 {
	if b.Int64 != nil {
		return *b.Int64
	}
	return int64(*b.Int)
}

// Bounds lists l's fields as settings, each pointing into l.
func (l *Limits) Bounds() []Bound {
	return []Bound{
		{Name: "max-bytes", Int64: &l.MaxBytes, Default: DefaultMaxBytes, Ceiling: MaxBytesCeiling,
			Usage: "largest agent file accepted, in bytes"},
		{Name: "max-line-bytes", Int: &l.MaxLineBytes, Default: DefaultMaxLineBytes, Ceiling: MaxLineBytesCeiling,
			Usage: "longest line accepted in the agent file, in bytes"},
		{Name: "max-frontmatter-lines", Int: &l.MaxFrontmatterLines, Default: DefaultMaxFrontmatterLines, Ceiling: MaxFrontmatterLinesCeiling,
			Usage: "most frontmatter lines accepted"},
		{Name: "max-planes", Int: &l.MaxPlanes, Default: DefaultMaxPlanes, Ceiling: MaxPlanesCeiling,
			Usage: "most planes (identity + skills) accepted"},
		{Name: "max-attributes", Int: &l.MaxAttributes, Default: DefaultMaxAttributes, Ceiling: MaxAttributesCeiling,
			Usage: "most key=value attributes on one @plane line"},
		{Name: "max-attribute-bytes", Int: &l.MaxAttributeBytes, Default: DefaultMaxAttributeBytes, Ceiling: MaxAttributeBytesCeiling,
			Usage: "longest attribute value accepted, in bytes"},
		{Name: "max-links", Int: &l.MaxLinks, Default: DefaultMaxLinks, Ceiling: MaxLinksCeiling,
			Usage: "most [[z=…]] links accepted in the whole file"},
		{Name: "max-description-bytes", Int: &l.MaxDescriptionBytes, Default: DefaultMaxDescriptionBytes, Ceiling: MaxDescriptionBytesCeiling,
			Usage: "body prefix read to build a skill's description, in bytes"},
	}
}
