package filestat

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func stat(t *testing.T, path string) Sig {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s, full := Of(fi)
	if full != (runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1") {
		t.Fatalf("Of(%s): full = %v on %s", path, full, runtime.GOOS)
	}
	return s
}

// TestOfChanges checks that each kind of change a cache must notice moves
// the signature, and that one that changes nothing keeps it.
func TestOfChanges(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	base := stat(t, path)
	if base.Size != 3 || base.Mtime != old.UnixNano() {
		t.Fatalf("Of = %+v, want size 3 and mtime %d", base, old.UnixNano())
	}
	if again := stat(t, path); again != base {
		t.Fatalf("an unchanged file signs %+v, then %+v", base, again)
	}
	tests := []struct {
		name   string
		change func()
		same   bool // still the same file (device and inode)
	}{
		{"same size, mtime restored", func() { write("two") }, true},
		{"replaced by rename", func() {
			tmp := filepath.Join(dir, "tmp")
			if err := os.WriteFile(tmp, []byte("one"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, old, old); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"chmod", func() {
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "windows" {
				t.Skip("no inode, change time or mode bits to move")
			}
			before := stat(t, path)
			time.Sleep(10 * time.Millisecond) // a coarse clock must tick for the change time
			tc.change()
			after := stat(t, path)
			if after == before {
				t.Fatalf("signature did not move: %+v", after)
			}
			if got := after.SameFile(before); got != tc.same {
				t.Fatalf("SameFile = %v, want %v (%+v, %+v)", got, tc.same, before, after)
			}
		})
	}
}

// TestReadableBy checks which permission bit decides for the owner, a
// group member and anyone else, as a user other than root (the test runs
// as root too).
func TestReadableBy(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no Unix mode bits here")
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const nobody = 64999
	owner, group := os.Geteuid(), os.Getegid()
	tests := []struct {
		perm   os.FileMode
		uid    int
		groups []int
		want   bool
	}{
		{0o400, -1, nil, true},           // -1: the file's owner
		{0o044, -1, []int{group}, false}, // the owner's bit decides for the owner
		{0o040, nobody, []int{group}, true},
		{0o404, nobody, []int{group}, false}, // the group's bit decides for a member
		{0o004, nobody, []int{nobody}, true},
		{0o440, nobody, []int{nobody}, false},
		{0o000, 0, nil, true}, // root
	}
	for _, tc := range tests {
		if err := os.Chmod(path, tc.perm); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if tc.uid == -1 {
			if owner == 0 {
				continue // root reads everything
			}
			tc.uid = owner
		}
		if got := ReadableBy(fi, tc.uid, tc.groups); got != tc.want {
			t.Errorf("ReadableBy(mode %v, uid %d, groups %v) = %v, want %v", tc.perm, tc.uid, tc.groups, got, tc.want)
		}
	}
}
