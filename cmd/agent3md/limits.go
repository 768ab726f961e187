package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/internal/bytesize"
)

// The scanner's bounds are flags on every command that reads an agent file.
// agentfile.Limits.Bounds names them (the names its LimitErrors give, so
// an error names the flag that raises the bound), with their defaults and
// ceilings; this file declares the flags, checks their range and groups
// them under their own help heading.

// limitAnnotation marks a flag as one of the agent file limits, so usage
// can group them under their own heading.
const limitAnnotation = "agent3md-limit"

// addLimitFlags registers the agent file's bounds on fs.
func (a *app) addLimitFlags(fs *pflag.FlagSet) {
	for _, l := range a.limits.Bounds() {
		switch {
		case strings.HasSuffix(l.Name, "-bytes"):
			// A byte bound takes units: --max-bytes 2GiB.
			if l.Int64 != nil {
				bytesize.Int64Var(fs, l.Int64, l.Name, l.Default, l.Usage+" (units B, KiB, MiB, GiB)")
			} else {
				bytesize.IntVar(fs, l.Int, l.Name, int(l.Default), l.Usage+" (units B, KiB, MiB, GiB)")
			}
		case l.Int64 != nil:
			fs.Int64Var(l.Int64, l.Name, l.Default, l.Usage)
		default:
			fs.IntVar(l.Int, l.Name, int(l.Default), l.Usage)
		}
		fs.SetAnnotation(l.Name, limitAnnotation, []string{"true"})
	}
}

// checkLimits refuses a limit flag set outside [1, ceiling]: 0 or a
// negative value would silently mean the default, and a value past the
// ceiling would silently be cut to it (or stop bounding anything).
func (a *app) checkLimits(fs *pflag.FlagSet) error {
	for _, l := range a.limits.Bounds() {
		if fs.Lookup(l.Name) == nil {
			continue
		}
		if err := checkRange(l.Name, l.Value(), 1, l.Ceiling); err != nil {
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

// checkDefaultRange is checkRange with the flag's default in the error.
func checkDefaultRange(name string, v, lo, hi int64, def string) error {
	if err := checkRange(name, v, lo, hi); err != nil {
		return ioError(fmt.Errorf("%w (default %s)", err, def))
	}
	return nil
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
	for _, l := range a.limits.Bounds() {
		fmt.Fprintf(&b, "  %-26s %12d %14d  %s\n", "--"+l.Name, l.Default, l.Ceiling, l.Usage)
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
