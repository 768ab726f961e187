package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Prefix names the hash a digest is of.
const Prefix = "sha256:"

// Of is b's digest.
func Of(b []byte) string { return Sum(sha256.Sum256(b)) }

// Sum is the digest of a SHA-256 already computed.
func Sum(sum [sha256.Size]byte) string { return Prefix + hex.EncodeToString(sum[:]) }

// FromHex is the digest of a SHA-256 given as lowercase hex.
func FromHex(h string) string { return Prefix + h }

// Hex is the hex of digest d, without Prefix (d itself when it has none).
func Hex(d string) string { return strings.TrimPrefix(d, Prefix) }
