package main

import (
	"errors"
	"fmt"
	"github.com/agent3md/agent3md/internal/bytesize"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/agentfile"
)

// The scanner's bounds are flags on every command that reads an agent file.
// This file is the one place that knows them: their names, defaults and
// ceilings, the range check, the help heading they are grouped under, and
// the mapping from a bound the library reports to the flag that raises it.

// limitAnnotation marks a flag as one of the agent file limits, so usage
// can group them under their own heading.
const limitAnnotation = "agent3md-limit"

// limitFlag is one bound of agentfile.Limits as a flag.
type limitFlag struct {
	name    string // the flag, without "--"
	usage   string
	def     int64
	ceiling int64
	i64     *int64 // exactly one of i64 and i is set
	i       *int
	// libFlag is the name agentfile's LimitError gives the bound.
	libFlag string
}

func (l *limitFlag) value() int64 {
	if l.i64 != nil {
		return *l.i64
	}
	return int64(*l.i)
}

// limitFlags returns the table over a.limits.
func (a *app) limitFlags() []limitFlag {
	l := &a.limits
	return []limitFlag{
		{name: "max-bytes", libFlag: "--max-bytes", i64: &l.MaxBytes, def: agentfile.DefaultMaxBytes, ceiling: agentfile.MaxBytesCeiling,
			usage: "largest agent file accepted, in bytes"},
		{name: "max-line-bytes", libFlag: "--max-line-bytes", i: &l.MaxLineBytes, def: agentfile.DefaultMaxLineBytes, ceiling: agentfile.MaxLineBytesCeiling,
			usage: "longest line accepted in the agent file, in bytes"},
		{name: "max-frontmatter-lines", libFlag: "--max-frontmatter-lines", i: &l.MaxFrontmatterLines, def: agentfile.DefaultMaxFrontmatterLines, ceiling: agentfile.MaxFrontmatterLinesCeiling,
			usage: "most frontmatter lines accepted"},
		{name: "max-planes", libFlag: "--max-planes", i: &l.MaxPlanes, def: agentfile.DefaultMaxPlanes, ceiling: agentfile.MaxPlanesCeiling,
			usage: "most planes (identity + skills) accepted"},
		{name: "max-attributes", libFlag: "--max-attributes", i: &l.MaxAttributes, def: agentfile.DefaultMaxAttributes, ceiling: agentfile.MaxAttributesCeiling,
			usage: "most key=value attributes on one @plane line"},
		{name: "max-attribute-bytes", libFlag: "--max-attribute-bytes", i: &l.MaxAttributeBytes, def: agentfile.DefaultMaxAttributeBytes, ceiling: agentfile.MaxAttributeBytesCeiling,
			usage: "longest attribute value accepted, in bytes"},
		{name: "max-links", libFlag: "--max-links", i: &l.MaxLinks, def: agentfile.DefaultMaxLinks, ceiling: agentfile.MaxLinksCeiling,
			usage: "most [[z=…]] links accepted in the whole file"},
		{name: "max-description-bytes", libFlag: "--max-description-bytes", i: &l.MaxDescriptionBytes, def: agentfile.DefaultMaxDescriptionBytes, ceiling: agentfile.MaxDescriptionBytesCeiling,
			usage: "body prefix read to build a skill's description, in bytes"},
	}
}

// addLimitFlags registers the agent file's bounds on fs.
func (a *app) addLimitFlags(fs *pflag.FlagSet) {
	for _, l := range a.limitFlags() {
		switch {
		case strings.HasSuffix(l.name, "-bytes"):
			// A byte bound takes units: --max-bytes 2GiB.
			if l.i64 != nil {
				bytesize.Int64Var(fs, l.i64, l.name, l.def, l.usage+" (units B, KiB, MiB, GiB)")
			} else {
				bytesize.IntVar(fs, l.i, l.name, int(l.def), l.usage+" (units B, KiB, MiB, GiB)")
			}
		case l.i64 != nil:
			fs.Int64Var(l.i64, l.name, l.def, l.usage)
		default:
			fs.IntVar(l.i, l.name, int(l.def), l.usage)
		}
		fs.SetAnnotation(l.name, limitAnnotation, []string{"true"})
	}
}

// checkLimits refuses a limit flag set outside [1, ceiling]: 0 or a
// negative value would silently mean the default, and a value past the
// ceiling would silently be cut to it (or stop bounding anything).
func (a *app) checkLimits(fs *pflag.FlagSet) error {
	for _, l := range a.limitFlags() {
		if fs.Lookup(l.name) == nil {
			continue
		}
		if err := checkRange(l.name, l.value(), 1, l.ceiling); err != nil {
			return err
		}
	}
	return nil
}

// checkRange is the usage error for a numeric flag outside [lo, hi].
func checkRange(name string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return ioError(fmt.Errorf("--%s %d is out of range: use a value from %d to %d", name, v, lo, hi))
	}
	return nil
}

// limitError rewrites a limit failure to name the flag this binary has for
// it. The library renders its message when it stops, with its own name for
// the bound; this is the single place that turns that into a flag.
func (a *app) limitError(err error) {
	var le *agentfile.LimitError
	var pe *agentfile.ParseError
	if !errors.As(err, &le) {
		return
	}
	for _, l := range a.limitFlags() {
		if l.libFlag == le.Flag {
			le.Flag = "--" + l.name
		}
	}
	if errors.As(err, &pe) && pe.Name == agentfile.LimitExceeded {
		pe.Msg = le.Error()
	}
}

// limitsHelp is the 'agent3md help limits' topic.
func (a *app) limitsHelp() *cobra.Command {
	var b strings.Builder
	b.WriteString(`Every command that reads an agent file bounds what it will read, so a
hostile or broken file costs a known amount of time and memory. When a file
breaks a bound the error names the line, the bound and the flag that
raises it. Each flag takes a value from 1 to its ceiling.

`)
	fmt.Fprintf(&b, "  %-26s %12s %14s  %s\n", "flag", "default", "ceiling", "bounds")
	for _, l := range a.limitFlags() {
		fmt.Fprintf(&b, "  %-26s %12d %14d  %s\n", "--"+l.name, l.def, l.ceiling, l.usage)
	}
	b.WriteString(`
The mcp command also bounds one JSON-RPC message from the client with
--max-message-bytes; --max-line-bytes is the agent file's line bound on
every command, mcp included.`)
	return &cobra.Command{
		Use:   "limits",
		Short: "The --max-* flags that bound an agent file",
		Long:  b.String(),
	}
}
