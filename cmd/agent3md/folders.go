package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir"
)

// folderFlags are mcp's options for skill folders (docs/skill-folders.md
// §8, §10): one switch per well-known user folder, and the scan's bounds.
type folderFlags struct {
	wellKnown    map[string]*bool // location name -> --<name>-skills
	maxDepth     int
	maxFileBytes int64
}

func (f *folderFlags) add(fs *pflag.FlagSet) {
	f.wellKnown = map[string]*bool{}
	for _, name := range []string{"claude", "cursor", "codex", "agents"} {
		f.wellKnown[name] = fs.Bool(name+"-skills", false, "also serve the user's "+name+" skills folder ("+wellKnownHint(name)+") if it exists")
	}
	fs.IntVar(&f.maxDepth, "max-skill-depth", skillsdir.DefaultMaxDepth, "how many directory levels below each skills folder are searched for SKILL.md")
	fs.Int64Var(&f.maxFileBytes, "max-skill-file-bytes", skillsdir.DefaultMaxFileBytes, "largest file of a skill folder that is served; bigger ones are skipped with a warning")
}

func wellKnownHint(name string) string {
	for _, l := range skillsdir.WellKnown() {
		if l.Name == name {
			if home, err := os.UserHomeDir(); err == nil {
				if rel, err := filepath.Rel(home, l.Path); err == nil {
					return "~/" + filepath.ToSlash(rel)
				}
			}
			return l.Path
		}
	}
	return "under the home directory"
}

// existing returns the well-known folders asked for that exist, warning
// on w about the others.
func (f *folderFlags) existing(w io.Writer) []string {
	var out []string
	for _, l := range skillsdir.WellKnown() {
		if on := f.wellKnown[l.Name]; on == nil || !*on {
			continue
		}
		if fi, err := os.Stat(l.Path); err == nil && fi.IsDir() {
			out = append(out, l.Path)
		} else {
			fmt.Fprintf(w, "agent3md: warning: --%s-skills: %s does not exist; not served\n", l.Name, l.Path)
		}
	}
	return out
}

// mcpSource is what mcp serves: one agent file, or skill folders.
type mcpSource struct {
	file    string
	folders []string
}

// mcpSources sorts mcp's arguments: a single agent file (or "-") is served
// as that agent; directories, with the well-known folders asked for, are
// served together as skill folders. An agent file and folders together
// are refused: a folder joins an agent file by importing it.
func (a *app) mcpSources(args []string, ff *folderFlags) (mcpSource, error) {
	var src mcpSource
	var files []string
	for _, arg := range args {
		if arg == stdinArg {
			files = append(files, arg)
			continue
		}
		fi, err := os.Stat(arg)
		if err == nil && fi.IsDir() {
			src.folders = append(src.folders, arg)
			continue
		}
		files = append(files, arg)
	}
	src.folders = append(src.folders, ff.existing(a.stderr)...)
	switch {
	case len(files) > 0 && len(src.folders) > 0:
		return src, ioError(fmt.Errorf("mcp serves either one agent file or skill folders, not both (%s with %s): turn the folders into planes with 'agent3md import DIR' and merge them into the agent file, or serve them from a second server", files[0], src.folders[0]))
	case len(files) > 1:
		return src, ioError(fmt.Errorf("mcp serves one agent file, got %d (%s, %s): run one server per agent", len(files), files[0], files[1]))
	case len(files) == 1:
		src.file = files[0]
	case len(src.folders) == 0:
		return src, ioError(errors.New("mcp needs an agent FILE, or one or more skill folders (directories, or --claude-skills and the like for a folder that exists)"))
	}
	return src, nil
}

// openFolders opens the skill folders for serving: pinned to one scan,
// since the server reloads whole versions.
func (a *app) openFolders(ctx context.Context, roots []string, ff *folderFlags) (*loader.Agent, error) {
	if ff.maxDepth < 1 {
		return nil, ioError(fmt.Errorf("--max-skill-depth %d: use a positive number of levels (default %d)", ff.maxDepth, skillsdir.DefaultMaxDepth))
	}
	if ff.maxFileBytes < 1 {
		return nil, ioError(fmt.Errorf("--max-skill-file-bytes %d: use a positive byte count (default %d)", ff.maxFileBytes, skillsdir.DefaultMaxFileBytes))
	}
	ag, err := loader.OpenFolders(ctx, roots, &loader.FolderOptions{MaxDepth: ff.maxDepth, MaxFileBytes: ff.maxFileBytes, NoRescan: true})
	if err != nil {
		return nil, ioError(err)
	}
	if len(ag.Info().Skills) == 0 {
		// Most likely a project folder passed for its agent file: say so
		// rather than serve an agent with no skills.
		ag.Close()
		hint := agentFileHint(roots)
		return nil, ioError(fmt.Errorf("no skill found in %s: a skill is a folder holding a SKILL.md, at most %d levels down (--max-skill-depth)%s", strings.Join(roots, ", "), ff.maxDepth, hint))
	}
	return ag, nil
}

// agentFileHint names the agent files in roots, for a folder passed where
// one of its .3md files was meant: agent.3md first, else up to three
// others in name order. It is "" when there are none.
func agentFileHint(roots []string) string {
	for _, r := range roots {
		if p := filepath.Join(r, "agent.3md"); fileExists(p) {
			return "; to serve the agent file, pass its path: " + p
		}
	}
	for _, r := range roots {
		found, _ := filepath.Glob(filepath.Join(r, "*.3md"))
		var files []string
		for _, p := range found {
			if fileExists(p) {
				files = append(files, p)
			}
		}
		if len(files) == 0 {
			continue
		}
		more := ""
		if len(files) > 3 {
			more = fmt.Sprintf(" and %d more", len(files)-3)
			files = files[:3]
		}
		return fmt.Sprintf("; %s holds agent files (%s%s): pass one of their paths instead of the folder", r, strings.Join(files, ", "), more)
	}
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
