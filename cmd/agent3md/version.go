package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/internal/buildinfo"
)

// buildVersion is this binary's build info, with the -ldflags overrides
// of main.version and main.commit (internal/buildinfo).
func buildVersion() buildinfo.Info { return buildinfo.Read(version, commit) }

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version of this binary",
		Long: `version prints the module version this binary was built from (the tag
for 'go install github.com/agent3md/agent3md/cmd/agent3md@latest', a
pseudo-version or "(devel)" otherwise), the commit — from the build info,
or from -ldflags "-X main.commit=…" as 'just build' and release builds set
it — and the Go toolchain.`,
		Example: `  agent3md version`,
		Args:    args(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintln(a.stdout, buildVersion())
			return nil
		},
	}
}
