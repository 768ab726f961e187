package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// usage prints a command's usage like cobra's default, except that the
// agent file limits (eight --max-* flags on most commands) are named in
// one line pointing at 'help limits' instead of burying the command's own
// flags; they are accepted all the same.
func (a *app) usage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprintf(w, "Usage:\n")
	// A group (cache, completion) runs only to refuse a missing or
	// unknown subcommand: its usage is "[command]" alone.
	if c.Runnable() && (!c.HasParent() || !c.HasAvailableSubCommands()) {
		fmt.Fprintf(w, "  %s\n", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "  %s [command]\n", c.CommandPath())
	}
	if c.HasExample() {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
	}
	printCommands(w, c)
	own, limits := splitLimitFlags(c.LocalFlags())
	if own.HasAvailableFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", own.FlagUsages())
	}
	if limits.HasAvailableFlags() {
		// One line, not eight flags every command repeats: they are
		// listed, with defaults and ceilings, in one place.
		fmt.Fprintf(w, "\nAgent file limits: the --max-* flags of '%s help limits' are taken here too.\n", c.Root().Name())
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\nGlobal Flags:\n%s", c.InheritedFlags().FlagUsages())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nUse \"%s [command] --help\" for more information about a command.\n", c.CommandPath())
	}
	return nil
}

func printCommands(w io.Writer, c *cobra.Command) {
	var cmds, topics []*cobra.Command
	for _, sub := range c.Commands() {
		switch {
		case sub.IsAvailableCommand() || sub.Name() == "help":
			cmds = append(cmds, sub)
		case sub.IsAdditionalHelpTopicCommand():
			topics = append(topics, sub)
		}
	}
	for _, group := range []struct {
		title string
		cmds  []*cobra.Command
	}{{"Available Commands", cmds}, {"Additional help topics", topics}} {
		if len(group.cmds) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", group.title)
		for _, sub := range group.cmds {
			fmt.Fprintf(w, "  %-*s %s\n", c.NamePadding(), sub.Name(), sub.Short)
		}
	}
}

// splitLimitFlags separates the flags marked with limitAnnotation.
func splitLimitFlags(fs *pflag.FlagSet) (own, limits *pflag.FlagSet) {
	own = pflag.NewFlagSet("flags", pflag.ContinueOnError)
	limits = pflag.NewFlagSet("limits", pflag.ContinueOnError)
	fs.VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Annotations[limitAnnotation]; ok {
			limits.AddFlag(f)
		} else {
			own.AddFlag(f)
		}
	})
	return own, limits
}
