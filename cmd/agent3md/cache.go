package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/internal/bytesize"
	"github.com/agent3md/agent3md/internal/cachedir"
	"github.com/agent3md/agent3md/loader"
)

// cacheFlags are the routing index cache flags of mcp, route, run, index.
type cacheFlags struct {
	dir     string
	noCache bool
	maxSize string // a size; parsed by cacheMax
}

// addCacheFlags registers the routing index cache flags.
func (a *app) addCacheFlags(fs *pflag.FlagSet) {
	fs.StringVar(&a.cache.dir, "cache-dir", "", "routing index cache directory (default: agent3md in the user cache directory; see 'agent3md cache path')")
	fs.BoolVar(&a.cache.noCache, "no-cache", false, "never read or write the routing index cache")
	fs.StringVar(&a.cache.maxSize, "cache-max-size", "1GiB", "size cap of the cache: least recently used agents' entries are removed past it (0 keeps only the current agent's)")
}

// cacheDir is --cache-dir, else the default.
func (a *app) cacheDir() (string, error) {
	if a.cache.dir != "" {
		return a.cache.dir, nil
	}
	return cachedir.Default()
}

// maintainCache marks the entry of ag's content as just used (and as
// serving ag, for 'cache size') and evicts the least recently used others
// past --cache-max-size. It only costs a directory listing; failures are
// reported, not fatal: the cache is a shortcut.
func (a *app) maintainCache(ag *loader.Agent) {
	if a.cache.noCache {
		return
	}
	hash := ag.Catalog().SHA256
	dir, err := a.cacheDir()
	if err != nil {
		return
	}
	max, err := bytesize.Parse(a.cache.maxSize)
	if err != nil {
		return // refused earlier, in checkCacheFlags
	}
	if err := cachedir.Use(dir, hash, cacheSource(ag), max); err != nil {
		fmt.Fprintf(a.stderr, "agent3md: warning: pruning the cache %s: %v\n", dir, err)
	}
}

// cacheSource names ag for the cache's record: its file, or its skill
// folders, made absolute so the record means the same from anywhere.
func cacheSource(ag *loader.Agent) cachedir.Source {
	paths := ag.Folders()
	if len(paths) == 0 {
		paths = []string{ag.Path()}
	}
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil && p != "-" {
			paths[i] = abs
		}
	}
	return cachedir.Source{Path: strings.Join(paths, ", "), Name: ag.Info().Name}
}

// checkCacheFlags refuses a malformed --cache-max-size before any work.
func (a *app) checkCacheFlags(fs *pflag.FlagSet) error {
	if fs.Lookup("cache-max-size") == nil {
		return nil
	}
	if _, err := bytesize.Parse(a.cache.maxSize); err != nil {
		return ioError(fmt.Errorf("--cache-max-size: %w", err))
	}
	return nil
}

func (a *app) cacheCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "cache",
		Short: "Show where the routing index cache is, how big it is, or prune it",
		Long: `The routing index cache holds, per agent content, the built search index and
the scanned catalog, so the next start on an unchanged agent is fast. It
lives in agent3md in the user cache directory ($XDG_CACHE_HOME or ~/.cache
on Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows) unless
--cache-dir says otherwise. Each command that uses it keeps it under
--cache-max-size (default 1GiB) by removing the least recently used
agents' entries.`,
		Example: `  agent3md cache path
  agent3md cache size
  agent3md cache prune --max-size 200MiB`,
	}
	var dir, maxSize string
	resolve := func() (string, error) {
		a.cache.dir = dir
		d, err := a.cacheDir()
		if err != nil {
			return "", ioError(err)
		}
		return d, nil
	}
	path := &cobra.Command{
		Use: "path", Short: "Print the cache directory", Args: args(cobra.NoArgs),
		Example: "  du -sh \"$(agent3md cache path)\"",
		RunE: func(*cobra.Command, []string) error {
			d, err := resolve()
			if err == nil {
				fmt.Fprintln(a.stdout, d)
			}
			return err
		},
	}
	size := &cobra.Command{
		Use: "size", Short: "Print the cache's size and entries, least recently used first", Args: args(cobra.NoArgs),
		Example: "  agent3md cache size",
		RunE: func(*cobra.Command, []string) error {
			d, err := resolve()
			if err != nil {
				return err
			}
			if err := cachedir.WriteList(a.stdout, d); err != nil {
				return ioError(err)
			}
			return nil
		},
	}
	prune := a.cachePruneCmd(resolve, &maxSize)
	prune.Flags().StringVar(&maxSize, "max-size", "1GiB", "size to prune down to (0 empties the cache)")
	for _, sub := range []*cobra.Command{path, size, prune} {
		sub.Flags().StringVar(&dir, "cache-dir", "", "cache directory (default: agent3md in the user cache directory)")
		c.AddCommand(sub)
	}
	return c
}

func (a *app) cachePruneCmd(resolve func() (string, error), maxSize *string) *cobra.Command {
	return &cobra.Command{
		Use: "prune", Short: "Remove least recently used entries until the cache fits --max-size", Args: args(cobra.NoArgs),
		Example: "  agent3md cache prune              # down to 1GiB\n  agent3md cache prune --max-size 0 # empty it",
		RunE: func(*cobra.Command, []string) error {
			d, err := resolve()
			if err != nil {
				return err
			}
			max, err := bytesize.Parse(*maxSize)
			if err != nil {
				return ioError(fmt.Errorf("--max-size: %w", err))
			}
			removed, err := cachedir.Prune(d, max, "")
			cachedir.WritePruned(a.stdout, d, *maxSize, removed)
			if err != nil {
				return ioError(err)
			}
			return nil
		},
	}
}
