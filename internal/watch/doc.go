// Package watch tells a server when one file (New), or anything in the
// directory trees of skills folders (NewTree), has changed and settled, so
// it can reload it (docs/reload.md §3, docs/skill-folders.md §11). It owns
// noticing and debouncing only: it does not read the file, and a signal
// means "look again", not "the content differs" — the reader compares
// versions.
//
// Why the directory is watched, not the file. Editors save in ways that
// replace the file's inode: they write a temp file and rename it over the
// old one (vim with backupcopy=no, most IDEs, atomic deploys), or unlink the
// file and create it anew. A watch on the file itself follows the old inode
// and goes silent after the first such save. A watch on the directory sees
// every name that appears, changes or goes in it; the Watcher keeps the
// events for the file's base name (and, when the path is a symlink, for
// its target's name in the target's directory; a link pointed elsewhere is
// followed to its new target). A file that is missing (deleted, not yet
// recreated) is simply watched for until it comes back.
//
// Why debounce. One save is many events: a truncate, several writes, a
// chmod, or a create and a rename. Reloading on each would read half-written
// files and reload the same save several times. The Watcher waits until
// the file has been quiet for Options.Debounce and then sends one signal.
// Options.MaxWait bounds the wait, so a file that is written without
// pause (a log-like writer) is still reloaded now and then. The reader must
// still check that the file held still while it read it (loader.OpenStable
// does): a quiet spell says a save probably ended, not that it did.
//
// Why polling too. Watching needs an inotify instance and a watch (on Linux;
// kqueue or the like elsewhere), and both are limited per user; a
// directory that is removed or renamed takes its watch with it. In those
// cases the Watcher logs once and falls back to comparing the file's stat
// every Options.Poll, trying to watch again on each poll, so a server never
// fails for lack of file events.
//
// Trees. Operating system watches are per directory and not recursive, so
// NewTree adds one for every directory below its roots, adds the whole
// tree of a directory as it appears (walking it, since files may be made
// in it before its watch is in place) and drops the watches of one that
// goes. Hidden entries are ignored, as the skills scanner ignores them.
// Watches are a per-user resource shared with every other program: past
// Options.MaxDirs directories, or when the system refuses a watch, the
// tree is polled instead — a hash of every entry's path, kind, size and
// modification time — and watching is tried again every few polls.
package watch
