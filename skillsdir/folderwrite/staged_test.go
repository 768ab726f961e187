package folderwrite

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leftover makes the hidden folder a killed write of folder name leaves
// in dir: files (path → content) and, unless marker is "", a marker; then
// ages it by age.
func leftover(t *testing.T, dir, name, Marker string, files map[string]string, age time.Duration) string {
	t.Helper()
	staged := filepath.Join(dir, "."+name+".agent3md-0123456789abcdef")
	for p, data := range files {
		write(t, filepath.Join(staged, filepath.FromSlash(p)), data)
	}
	if Marker != "" {
		write(t, filepath.Join(staged, markerFile), Marker)
	}
	old := time.Now().Add(-age)
	if err := os.Chtimes(staged, old, old); err != nil {
		t.Fatal(err)
	}
	return staged
}

func markerOf(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name, markerFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestRecoverStaged: each state a killed write can leave, and what
// RecoverStaged does with it.
func TestRecoverStaged(t *testing.T) {
	ours := &WriteOptions{Agent: "team", Origin: "https://a/mcp", Command: "sync"}
	setup := func(t *testing.T) (dir, mark string) {
		dir = t.TempDir()
		if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v1")}, ours); err != nil {
			t.Fatal(err)
		}
		return dir, markerOf(t, dir, "deploy")
	}
	v2 := map[string]string{"SKILL.md": skillMD("deploy", "", "v2"), "references/notes.md": "notes v2\n"}

	t.Run("killed before the swap: the user's files go back", func(t *testing.T) {
		dir, mark := setup(t)
		files := map[string]string{"mine.txt": "my own notes\n", "references/extra.md": "mine too\n"}
		for p, d := range v2 {
			files[p] = d
		}
		staged := leftover(t, dir, "deploy", mark, files, time.Hour)
		rep, err := RecoverStaged(dir, ours)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"mine.txt", "references/extra.md"} {
			if b, err := os.ReadFile(filepath.Join(dir, "deploy", filepath.FromSlash(p))); err != nil || !strings.Contains(string(b), "mine") && !strings.Contains(string(b), "my own") {
				t.Errorf("deploy/%s not restored: %v", p, err)
			}
		}
		if exists(staged) || len(rep.Left) != 0 {
			t.Errorf("the leftover is still there (left %v)", rep.Left)
		}
		if want := []string{"deploy/mine.txt", "deploy/references/extra.md"}; !slices.Equal(rep.Restored, want) {
			t.Errorf("restored %v, want %v", rep.Restored, want)
		}
		if len(rep.Removed) != 2 {
			t.Errorf("removed %v, want the leftover's two written files", rep.Removed)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "deploy", "SKILL.md")); !strings.Contains(string(b), "v1") {
			t.Error("the live folder's own SKILL.md was touched")
		}
	})

	t.Run("killed after the swap: the previous version goes", func(t *testing.T) {
		dir, mark := setup(t)
		staged := leftover(t, dir, "deploy", mark, v2, time.Hour)
		rep, err := RecoverStaged(dir, ours)
		if err != nil {
			t.Fatal(err)
		}
		if exists(staged) || len(rep.Restored) != 0 {
			t.Errorf("leftover there: %v, restored %v", exists(staged), rep.Restored)
		}
	})

	t.Run("an entry the folder has again stays, and so does the leftover", func(t *testing.T) {
		dir, mark := setup(t)
		write(t, filepath.Join(dir, "deploy", "mine.txt"), "written again\n")
		staged := leftover(t, dir, "deploy", mark, map[string]string{"mine.txt": "the first one\n"}, time.Hour)
		rep, err := RecoverStaged(dir, ours)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(staged, "mine.txt")); string(b) != "the first one\n" {
			t.Errorf("the leftover's mine.txt: %q", b)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "deploy", "mine.txt")); string(b) != "written again\n" {
			t.Errorf("the folder's mine.txt was overwritten: %q", b)
		}
		if !slices.Equal(rep.Left, []string{staged}) {
			t.Errorf("left %v, want %s", rep.Left, staged)
		}
	})

	t.Run("no marker: the live marker's files go, the rest goes back", func(t *testing.T) {
		// A write with --force over a folder with no marker, killed after
		// the swap: the hidden folder is that folder's previous version.
		dir, _ := setup(t)
		staged := leftover(t, dir, "deploy", "", map[string]string{"SKILL.md": "theirs\n", "mine.txt": "mine\n"}, time.Hour)
		rep, err := RecoverStaged(dir, ours)
		if err != nil {
			t.Fatal(err)
		}
		if !exists(filepath.Join(dir, "deploy", "mine.txt")) || exists(staged) || !slices.Equal(rep.Removed, []string{".deploy.agent3md-0123456789abcdef/SKILL.md"}) {
			t.Errorf("mine.txt restored: %v; leftover gone: %v; removed %v", exists(filepath.Join(dir, "deploy", "mine.txt")), !exists(staged), rep.Removed)
		}
	})

	t.Run("no marker beside a folder not ours: left alone", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "deploy", "SKILL.md"), "a user's skill\n")
		staged := leftover(t, dir, "deploy", "", map[string]string{"SKILL.md": "x\n"}, time.Hour)
		if _, err := RecoverStaged(dir, ours); err != nil {
			t.Fatal(err)
		}
		if !exists(filepath.Join(staged, "SKILL.md")) {
			t.Error("removed a file no marker of ours lists")
		}
	})

	leftAlone := []struct {
		name   string
		opts   *WriteOptions
		age    time.Duration
		Marker bool
	}{
		{"a recent leftover may be a running write's", ours, time.Minute, true},
		{"another source's leftover", &WriteOptions{Agent: "team", Origin: "https://b/mcp"}, time.Hour, true},
		{"an export's options over a sync's leftover", &WriteOptions{Agent: "team"}, time.Hour, true},
	}
	for _, c := range leftAlone {
		t.Run(c.name, func(t *testing.T) {
			dir, mark := setup(t)
			staged := leftover(t, dir, "deploy", mark, map[string]string{"SKILL.md": "x\n", "mine.txt": "mine\n"}, c.age)
			rep, err := RecoverStaged(dir, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !exists(filepath.Join(staged, "mine.txt")) || !exists(filepath.Join(staged, "SKILL.md")) || len(rep.Restored)+len(rep.Removed)+len(rep.Left) != 0 {
				t.Errorf("touched: %+v", rep)
			}
		})
	}

	t.Run("a link with a leftover's name is never entered", func(t *testing.T) {
		dir, mark := setup(t)
		victim := t.TempDir()
		write(t, filepath.Join(victim, markerFile), mark)
		write(t, filepath.Join(victim, "SKILL.md"), "victim\n")
		if err := os.Symlink(victim, filepath.Join(dir, ".deploy.agent3md-0123456789abcdef")); err != nil {
			t.Skip(err)
		}
		if _, err := RecoverStaged(dir, ours); err != nil {
			t.Fatal(err)
		}
		if !exists(filepath.Join(victim, "SKILL.md")) || !exists(filepath.Join(victim, markerFile)) {
			t.Error("a file behind the link was removed")
		}
	})

	t.Run("no directory: nothing to do", func(t *testing.T) {
		rep, err := RecoverStaged(filepath.Join(t.TempDir(), "none"), ours)
		if err != nil || len(rep.Restored)+len(rep.Left) != 0 {
			t.Fatalf("%+v, %v", rep, err)
		}
	})
}

// TestRecoverAfterKill kills a process that rewrites a folder holding a
// user's own files, at random moments, and requires that after
// RecoverStaged every one of the user's files is in the folder and no
// hidden folder is left.
func TestRecoverAfterKill(t *testing.T) {
	if os.Getenv("AGENT3MD_STAGED_CHILD") != "" {
		rewriteForever(os.Getenv("AGENT3MD_STAGED_CHILD"))
		return
	}
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("kills child processes (not with -short, not on Windows)")
	}
	ours := &WriteOptions{Agent: "team", Origin: "https://a/mcp", Command: "sync"}
	user := map[string]string{}
	for i := range 40 {
		user[filepath.Join("mine", "n"+string(rune('a'+i%26))+string(rune('a'+i/26))+".txt")] = "user note\n"
	}
	kills, recovered := 15, 0
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range kills {
		dir := t.TempDir()
		if _, err := WriteFolders(dir, []Folder{bigFolder(0)}, ours); err != nil {
			t.Fatal(err)
		}
		for p, d := range user {
			write(t, filepath.Join(dir, "deploy", p), d)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestRecoverAfterKill$")
		cmd.Env = append(os.Environ(), "AGENT3MD_STAGED_CHILD="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(200)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		root, err := openDirRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadDir(dir)
		rep, err := recoverStaged(root, ours, time.Now().Add(time.Hour))
		root.close()
		if len(before) > 1 {
			recovered++
		}
		if err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		for p := range user {
			if !exists(filepath.Join(dir, "deploy", p)) {
				t.Fatalf("kill %d: deploy/%s is missing after recovery (report %+v)", k, p, rep)
			}
		}
		names, _ := os.ReadDir(dir)
		for _, e := range names {
			if strings.HasPrefix(e.Name(), ".") {
				t.Fatalf("kill %d: %s left (report %+v)", k, e.Name(), rep)
			}
		}
	}
	// A write of 200 files keeps a hidden folder most of the time it
	// runs; if no kill ever landed in one, the test tested nothing.
	t.Logf("%d of %d kills left a hidden folder to put right", recovered, kills)
	if recovered == 0 {
		t.Error("no kill left a hidden folder: the writes end too fast for this test to mean anything")
	}
}

// bigFolder is a version of a folder with enough files that a kill often
// lands inside a write.
func bigFolder(v int) Folder {
	f := Folder{Name: "deploy", Skill: "deploy", URI: "skill://deploy/SKILL.md"}
	f.Files = append(f.Files, FolderFile{Path: "SKILL.md", Data: []byte(skillMD("deploy", "", "version "+string(rune('0'+v))))})
	for i := range 200 {
		f.Files = append(f.Files, FolderFile{Path: "references/r" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".md", Data: []byte(strings.Repeat("x", 100+v))})
	}
	return f
}

// rewriteForever is the child of TestRecoverAfterKill: it writes two
// versions of the folder in turn until it is killed.
func rewriteForever(dir string) {
	o := &WriteOptions{Agent: "team", Origin: "https://a/mcp", Command: "sync"}
	for v := 1; ; v++ {
		if _, err := WriteFolders(dir, []Folder{bigFolder(v % 2)}, o); err != nil {
			os.Exit(3)
		}
	}
}

// TestRecoverEmptyMarker: a write killed between creating its hidden
// folder's marker and writing it leaves an empty marker; the leftover is
// put right as one with none.
func TestRecoverEmptyMarker(t *testing.T) {
	ours := &WriteOptions{Agent: "team", Origin: "https://a/mcp", Command: "sync"}
	dir := t.TempDir()
	if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v1")}, ours); err != nil {
		t.Fatal(err)
	}
	staged := leftover(t, dir, "deploy", "", map[string]string{markerFile: ""}, time.Hour)
	rep, err := RecoverStaged(dir, ours)
	if err != nil {
		t.Fatal(err)
	}
	if exists(staged) || len(rep.Left) != 0 {
		t.Errorf("the leftover is still there (report %+v)", rep)
	}
}
