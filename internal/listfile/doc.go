// Package listfile is the binary form of the router's own cache files
// (stats.bin, phrases.bin, bodies.bin beside a bleve index): a four-byte
// magic, then integers as LEB128 varints, floats as eight little-endian
// bytes, a list as its length and items, a vocabulary as its term count,
// their lengths, then their bytes back to back.
//
// A Reader checks every length against the bytes left before it
// allocates, so no file can make a decoder allocate more than its own
// size allows, and it remembers its first error so a decoder reads on
// and checks once. What the lists mean, and whether they fit together,
// is the caller's to check.
package listfile
