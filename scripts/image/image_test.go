package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// staticBinary builds a small static Linux program for the test machine's
// architecture: it prints "hello from <uid>".
func staticBinary(t *testing.T) string { return staticBinaryFor(t, runtime.GOARCH) }

// staticBinaryFor is staticBinary for the architecture arch.
func staticBinaryFor(t *testing.T, arch string) string {
	t.Helper()
	dir := t.TempDir()
	src := "package main\nimport (\"fmt\"; \"os\")\nfunc main() { fmt.Printf(\"hello from %d\\n\", os.Getuid()) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestBuildAndExtract(t *testing.T) {
	bin := staticBinary(t)
	dir := t.TempDir()
	one, two := filepath.Join(dir, "1.tar"), filepath.Join(dir, "2.tar")
	for _, out := range []string{one, two} {
		if err := build(&buildOptions{Out: out, Tag: "t", Version: "1.2.3", Binaries: []string{bin}, Time: time.Unix(1700000000, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := os.ReadFile(one)
	b, _ := os.ReadFile(two)
	if !bytes.Equal(a, b) {
		t.Error("two builds of the same binary differ: the archive is not reproducible")
	}
	img, err := pickFromArchive(t, one, "linux/"+runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	cfg := img.Config
	if cfg.User != "65532:65532" || len(cfg.Entrypoint) != 1 || cfg.Entrypoint[0] != "/agent3md" || cfg.WorkingDir != "/home/nonroot" || cfg.Labels["org.opencontainers.image.version"] != "1.2.3" {
		t.Errorf("config %+v", cfg)
	}
	var fsTar bytes.Buffer
	if err := extract(one, "", &fsTar); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(bin)
	entries := map[string]*tar.Header{}
	tr := tar.NewReader(&fsTar)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		entries[strings.TrimSuffix(h.Name, "/")] = h
		data, _ := io.ReadAll(tr)
		switch h.Name {
		case "agent3md":
			if !bytes.Equal(data, want) || h.Mode&0o111 == 0 {
				t.Errorf("/agent3md is not the binary, executable (mode %o)", h.Mode)
			}
		case "etc/passwd":
			if !strings.Contains(string(data), "nonroot:x:65532:65532:") {
				t.Errorf("/etc/passwd: %q", data)
			}
		}
	}
	if h := entries["home/nonroot"]; h == nil || h.Uid != 65532 {
		t.Errorf("/home/nonroot is not 65532's: %+v", h)
	}
	if h := entries["tmp"]; h == nil || h.Mode&0o1777 != 0o1777 {
		t.Errorf("/tmp is not world-writable and sticky: %+v", h)
	}
	if err := extract(one, "linux/none", io.Discard); err == nil || !strings.Contains(err.Error(), "it holds linux/"+runtime.GOARCH) {
		t.Errorf("a platform it lacks: %v", err)
	}
}

// TestRefusesWhatCannotRun: the image has no libc and no shell, so a
// file that is not a static Linux executable is refused, saying how to
// build one.
func TestRefusesWhatCannotRun(t *testing.T) {
	text := filepath.Join(t.TempDir(), "script.sh")
	os.WriteFile(text, []byte("#!/bin/sh\necho hi\n"), 0o755)
	if _, err := elfPlatform(text); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("a script: %v", err)
	}
	// /bin/sh is dynamically linked on every distribution CI runs.
	if _, err := elfPlatform("/bin/sh"); err == nil {
		t.Skip("/bin/sh is static here")
	} else if !strings.Contains(err.Error(), "dynamically linked") && !strings.Contains(err.Error(), "not a Linux executable") {
		t.Errorf("/bin/sh: %v", err)
	}
}

// TestMultiPlatform: two binaries make one tagged index over both
// platforms (index.json names that index alone), each extracted by its
// platform; without one, extract says to pass it.
func TestMultiPlatform(t *testing.T) {
	amd, arm := staticBinaryFor(t, "amd64"), staticBinaryFor(t, "arm64")
	out := filepath.Join(t.TempDir(), "multi.tar")
	if err := build(&buildOptions{Out: out, Tag: "v9", Version: "v9", Binaries: []string{amd, arm}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := untar(out, dir); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	var top v1.IndexManifest
	if err := json.Unmarshal(raw, &top); err != nil || len(top.Manifests) != 1 ||
		!top.Manifests[0].MediaType.IsIndex() || top.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "v9" {
		t.Errorf("index.json should name one index, tagged v9: %s", raw)
	}
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		cfg, err := pickFromArchive(t, out, p)
		if err != nil || cfg.OS+"/"+cfg.Architecture != p {
			t.Errorf("%s: %+v, %v", p, cfg, err)
		}
	}
	if err := extract(out, "", io.Discard); err == nil || !strings.Contains(err.Error(), "pass -platform") {
		t.Errorf("no -platform: %v", err)
	}
	if err := build(&buildOptions{Out: out, Binaries: []string{amd, amd}}); err == nil || !strings.Contains(err.Error(), "are both linux/amd64") {
		t.Errorf("two binaries of one platform: %v", err)
	}
}
