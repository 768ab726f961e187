package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// extract writes the file system of the archive's image for platform
// ("os/arch"; "" when the archive holds one image) to w as a tar stream.
func extract(archive, platform string, w io.Writer) error {
	dir, err := os.MkdirTemp("", "agent3md-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := untar(archive, dir); err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	img, err := pick(dir, platform)
	if err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	rc := mutate.Extract(img)
	defer rc.Close()
	_, err = io.Copy(w, rc)
	return err
}

// pick is the image for platform in the OCI layout at dir, looking
// through nested indexes (build writes one, tagged, over the platforms).
func pick(dir, platform string) (v1.Image, error) {
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	var found []v1.Image
	var have []string
	var walk func(v1.ImageIndex) error
	walk = func(idx v1.ImageIndex) error {
		m, err := idx.IndexManifest()
		if err != nil {
			return err
		}
		for _, d := range m.Manifests {
			if d.MediaType.IsIndex() {
				sub, err := idx.ImageIndex(d.Digest)
				if err != nil {
					return err
				}
				if err := walk(sub); err != nil {
					return err
				}
				continue
			}
			if d.Platform == nil {
				continue
			}
			p := d.Platform.OS + "/" + d.Platform.Architecture
			have = append(have, p)
			if platform == "" || p == platform {
				img, err := idx.Image(d.Digest)
				if err != nil {
					return err
				}
				found = append(found, img)
			}
		}
		return nil
	}
	if err := walk(idx); err != nil {
		return nil, err
	}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("no image for %q; it holds %s", platform, strings.Join(have, ", "))
	case len(found) > 1:
		return nil, fmt.Errorf("it holds %s: pass -platform", strings.Join(have, ", "))
	}
	return found[0], nil
}

// untar unpacks the OCI archive into dir: regular files and directories
// only, every path inside dir.
func untar(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("entry %q leaves the archive's folder", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.Create(target)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("entry %q is neither a file nor a folder", h.Name)
		}
	}
}
