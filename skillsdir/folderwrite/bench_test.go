package folderwrite

import (
	"fmt"
	"testing"
)

// BenchmarkWriteUpdate200 rewrites 200 synced folders (SKILL.md and a
// reference each) from one version to the other: what the ownership
// rules add to a changed write (reading the marker's files to compare
// their digests, looking for the user's files at the paths written).
func BenchmarkWriteUpdate200(b *testing.B) {
	dir := b.TempDir()
	o := &WriteOptions{Agent: "team", Origin: "src", Command: "sync"}
	versions := [2][]Folder{}
	for v := range versions {
		for i := range 200 {
			versions[v] = append(versions[v], syncFolder(fmt.Sprintf("skill-%03d", i), fmt.Sprintf("version %d", v)))
		}
	}
	if _, err := WriteFolders(dir, versions[0], o); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := WriteFolders(dir, versions[(i+1)%2], o); err != nil {
			b.Fatal(err)
		}
	}
}
