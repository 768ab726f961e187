package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

func (a *app) indexCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "index FILE",
		Short: "Build or refresh the routing index cache for FILE",
		Long: `index builds the routing index for FILE into the cache (or confirms the
cached one is current), so that the next 'agent3md mcp' or 'route' starts
warm. Small agents are indexed in memory on every start and are not cached.
On a terminal it shows a progress bar for large files.`,
		Example: `  agent3md index big-agent.3md
  agent3md index --cache-dir /var/cache/agent3md big-agent.3md`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			a.useCache = true
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				opts := a.routerOptions(ag)
				start := time.Now()
				r, err := router.ForAgent(c.Context(), ag, opts)
				if err != nil {
					return ioError(err)
				}
				defer r.Close()
				info := r.Info()
				name := args[0]
				if name == "-" {
					name = stdinName // as in every other message about it
				}
				fmt.Fprintf(a.stdout, "%s: %d skills, index %s in %v", name, info.Skills, info.Index, time.Since(start).Round(time.Millisecond))
				if info.Path != "" {
					fmt.Fprintf(a.stdout, " at %s", info.Path)
				}
				switch {
				case info.Reason != "":
					fmt.Fprintf(a.stdout, " (%s)", info.Reason)
				case info.Index == router.IndexMemory && !a.cache.noCache:
					// Say that nothing was written, and why: an agent this
					// small indexes faster than a cache entry opens.
					fmt.Fprintf(a.stdout, " (not cached: agents of up to %d skills are indexed in memory at every start)", router.DefaultMemoryThreshold)
				}
				fmt.Fprintln(a.stdout)
				return nil
			})
		},
	}
	a.addLimitFlags(c.Flags())
	a.addCacheFlags(c.Flags())
	return c
}

// progressBar draws a one-line bar on a terminal, redrawn at most once per
// percent.
func progressBar(f *os.File) func(done, total int) {
	last := -1
	return func(done, total int) {
		if total <= 0 {
			return
		}
		pct := done * 100 / total
		if pct == last {
			return
		}
		last = pct
		const width = 40
		filled := pct * width / 100
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = ' '
			if i < filled {
				bar[i] = '='
			}
		}
		fmt.Fprintf(f, "\rindexing [%s] %3d%% %d/%d", bar, pct, done, total)
		if done >= total {
			fmt.Fprintln(f)
		}
	}
}
