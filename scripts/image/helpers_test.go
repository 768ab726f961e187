package main

import (
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// pickFromArchive is the config file of the archive's image for platform.
func pickFromArchive(t *testing.T, archive, platform string) (*v1.ConfigFile, error) {
	t.Helper()
	dir := t.TempDir()
	if err := untar(archive, dir); err != nil {
		return nil, err
	}
	img, err := pick(dir, platform)
	if err != nil {
		return nil, err
	}
	return img.ConfigFile()
}
