package digest

import (
	"crypto/sha256"
	"testing"
)

// The digest of the empty input, as the skills extension writes it.
const empty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func TestDigest(t *testing.T) {
	for _, tt := range []struct{ name, got, want string }{
		{"Of", Of(nil), empty},
		{"Sum", Sum(sha256.Sum256([]byte{})), empty},
		{"FromHex", FromHex(empty[len(Prefix):]), empty},
		{"Hex", Hex(empty), empty[len(Prefix):]},
		{"Hex without prefix", Hex("abc"), "abc"},
		{"Of text", Of([]byte("abc")), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
