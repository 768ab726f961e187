// Package listfile is the binary form of agent3md's own cache files (the
// router's stats.bin, phrases.bin and bodies.bin beside a bleve index,
// and agentfile's encoded catalog): a magic, then integers as LEB128
// varints, floats as eight little-endian bytes, a list (a string too) as
// its length and items, a vocabulary as its term count, their lengths,
// then their bytes back to back.
//
// A Reader checks every length against the bytes left before it
// allocates, so no file can make a decoder allocate more than its own
// size allows, and it remembers its first error so a decoder reads on
// and checks once. What the lists mean, and whether they fit together,
// is the caller's to check.
package listfile
