package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the image runs as: 65532, the "nonroot" of distroless images,
// so a cluster's runAsNonRoot and a runAsUser of 65532 both hold.
const (
	uid      = 65532
	userName = "nonroot"
	home     = "/home/nonroot"
	// port is serve's default port, declared for tools that read it.
	port = "8765/tcp"
	// binaryPath is where the binary goes: the entrypoint.
	binaryPath = "/agent3md"
)

type buildOptions struct {
	Out, Tag, Version string
	Binaries          []string // static linux binaries, one a platform
	Time              time.Time
}

// build writes one image per binary as an OCI archive: index.json names
// one image index, tagged, whose entries are the platforms' images (what
// `skopeo copy --all oci-archive:…` copies as one multi-platform image).
// Each entry is written here, not derived by the library, so it carries
// what an image's entry holds and nothing else (no artifactType).
func build(o *buildOptions) error {
	var adds []mutate.IndexAddendum
	seen := map[string]string{}
	for _, bin := range o.Binaries {
		p, err := elfPlatform(bin)
		if err != nil {
			return err
		}
		if prev, dup := seen[p.String()]; dup {
			return fmt.Errorf("%s and %s are both %s: pass one binary a platform", prev, bin, p)
		}
		seen[p.String()] = bin
		img, err := image(bin, p, o)
		if err != nil {
			return err
		}
		d, err := describe(img, types.OCIManifestSchema1, p, nil)
		if err != nil {
			return err
		}
		adds = append(adds, mutate.IndexAddendum{Add: described{img, d}})
	}
	idx := mutate.IndexMediaType(mutate.AppendManifests(empty.Index, adds...), types.OCIImageIndex)
	dir, err := os.MkdirTemp("", "agent3md-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, mutate.IndexMediaType(empty.Index, types.OCIImageIndex))
	if err != nil {
		return fmt.Errorf("writing the OCI layout: %w", err)
	}
	if err := lp.WriteIndex(idx); err != nil {
		return fmt.Errorf("writing the OCI layout: %w", err)
	}
	top, err := describe(idx, types.OCIImageIndex, nil, map[string]string{"org.opencontainers.image.ref.name": o.Tag})
	if err != nil {
		return err
	}
	if err := lp.AppendDescriptor(*top); err != nil {
		return err
	}
	return tarDir(dir, o.Out, o.Time)
}

// manifested is an image or an index: what a descriptor points at.
type manifested interface {
	RawManifest() ([]byte, error)
	Digest() (v1.Hash, error)
}

// describe is the descriptor of m with the media type, platform and
// annotations given.
func describe(m manifested, mt types.MediaType, p *v1.Platform, ann map[string]string) (*v1.Descriptor, error) {
	raw, err := m.RawManifest()
	if err != nil {
		return nil, err
	}
	digest, err := m.Digest()
	if err != nil {
		return nil, err
	}
	return &v1.Descriptor{MediaType: mt, Size: int64(len(raw)), Digest: digest, Platform: p, Annotations: ann}, nil
}

// described is an image whose index entry is the descriptor given
// (partial.Descriptor asks an image for its own before deriving one).
type described struct {
	v1.Image
	desc *v1.Descriptor
}

func (d described) Descriptor() (*v1.Descriptor, error) { return d.desc, nil }

// image is the scratch image of one binary.
func image(bin string, p *v1.Platform, o *buildOptions) (v1.Image, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	fsTar, err := rootFS(data, o.Time)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(fsTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	created := v1.Time{Time: o.Time}
	base, err = mutate.ConfigFile(base, &v1.ConfigFile{
		Architecture: p.Architecture, OS: p.OS, Variant: p.Variant, Created: created,
		RootFS: v1.RootFS{Type: "layers"},
		Config: v1.Config{
			User:         fmt.Sprintf("%d:%d", uid, uid),
			Entrypoint:   []string{binaryPath},
			Env:          []string{"HOME=" + home},
			WorkingDir:   home,
			ExposedPorts: map[string]struct{}{port: {}},
			Labels: map[string]string{
				"org.opencontainers.image.title":       "agent3md",
				"org.opencontainers.image.description": "Serve an agent's skills over MCP: agent3md serve (Streamable HTTP)",
				"org.opencontainers.image.version":     o.Version,
				"org.opencontainers.image.source":      "https://github.com/agent3md/agent3md",
				"org.opencontainers.image.licenses":    "MIT",
			},
		},
	})
	if err != nil {
		return nil, err
	}
	return mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created: created, CreatedBy: "scripts/image build: the static binary, /etc/passwd and /etc/group, " + home + ", /tmp",
	}})
}

// rootFS is the image's one layer: the binary and what a non-root
// process expects to find (its user in /etc/passwd, a home it may write,
// /tmp), every entry owned and timed so the bytes never vary.
func rootFS(binary []byte, t time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dir := func(name string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: owner, Gid: owner, ModTime: t, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: t, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, uid, uid, userName, home)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, uid)
	steps := []func() error{
		func() error { return file(binaryPath[1:], 0o755, binary) },
		func() error { return dir("etc/", 0o755, 0) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return dir("home/", 0o755, 0) },
		func() error { return dir(home[1:]+"/", 0o755, uid) },
		func() error { return dir("tmp/", 0o1777, 0) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// elfPlatform reads a binary's platform from its ELF header, and refuses
// one that is not a static Linux executable: the image has no libc, so a
// dynamically linked binary would fail to start in it with "no such file".
func elfPlatform(path string) (*v1.Platform, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Linux executable (%w); build it with GOOS=linux CGO_ENABLED=0", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil, fmt.Errorf("%s is dynamically linked, and the image has no libc: build it with CGO_ENABLED=0", path)
		}
	}
	arch := map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_386: "386",
		elf.EM_RISCV: "riscv64", elf.EM_PPC64: "ppc64le", elf.EM_S390: "s390x"}[f.Machine]
	if arch == "" {
		return nil, fmt.Errorf("%s: machine %v is not one this script knows", path, f.Machine)
	}
	p := &v1.Platform{OS: "linux", Architecture: arch}
	if arch == "arm64" {
		p.Variant = "v8"
	}
	return p, nil
}

// tarDir writes the files below dir into the tar file out, in sorted
// order, with fixed owners and times: an OCI archive whose bytes depend
// only on what it holds.
func tarDir(dir, out string, t time.Time) error {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	for _, p := range paths {
		if err := addFile(tw, dir, p, t); err != nil {
			f.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func addFile(tw *tar.Writer, dir, p string, t time.Time) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(dir, p)
	h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: t, Mode: 0o644, Format: tar.FormatPAX}
	if fi.IsDir() {
		h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
		return tw.WriteHeader(h)
	}
	h.Typeflag, h.Size = tar.TypeReg, fi.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	src, err := os.Open(p)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(tw, src)
	return err
}
