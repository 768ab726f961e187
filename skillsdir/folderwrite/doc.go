// Package folderwrite writes skill folders into a skills directory
// without racing anyone: the one writer export and sync share
// (docs/skill-folders.md §11, §13; docs/sync.md).
//
// WriteFolders writes each changed folder whole beside its place and
// renames it in (write.go, write_swap.go, swap*.go), with a marker per
// folder (marker.go) naming who wrote it, which files, and their SHA-256
// digests. Nothing is written or removed through a symbolic link: every
// operation goes through directories opened without following links
// (dirfd_*.go). RecoverStaged puts back what a killed write left in its
// hidden folders (staged.go). RemoveFolders, Survey and HashFiles are
// what a mirroring writer needs beside it: the state of each folder
// before deciding, the digests on disk, removal one folder at a time
// (mirror.go). Report lists what a write did.
//
// Whose each entry is, and so what a writer may replace or remove, is
// one set of rules in ownership.go: a folder is the writer's when its
// marker names the same Origin (a sync's source) or, without one, the
// same Agent; a file the marker does not list, or one edited since it
// was written, is the user's, and is never replaced or deleted unless
// forced. ValidName is the Agent Skills name rule a folder's name must
// pass.
//
// Layering: it imports no package of this module. skillsdir/export
// builds the folders it writes for export (and skillsdir/importer reads
// its markers' agent head back); skillsync imports it to mirror a server;
// the folder reader uses ValidName. It does not read skill folders as
// skills (skillsdir), render SKILL.md (skillsdir/export) or parse
// frontmatter (skillsdir/skillmd).
package folderwrite
