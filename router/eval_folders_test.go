package router

import "testing"

// TestRoutingFolders routes natural requests against three public
// collections of Agent Skills folders (testdata/folders/README.md): 161
// skills written by other people, none with trigger phrases, so every
// answer comes from names and descriptions. The requests were written
// from each skill's description before any routing change was measured
// against them; it is the one set over agents this project did not write.
func TestRoutingFolders(t *testing.T) {
	holdTo(t, "skill folders written elsewhere", "routing-folders.json", foldersMinTop1, true, false)
}

// foldersMinTop1 is the floor of the folders set: it measured 84.7%
// ranked (83/98), 0% false matches (0/15), when it was introduced, and
// 86.7% once relaxed matches put a skill whose name is said first, and
// 90.8% with the lower evidence bar for skills without triggers (rules
// made after reading this set's misses: since then it is a development
// set, not a held-out one).
const foldersMinTop1 = 0.86

// TestRoutingFoldersFresh routes the fresh held-out set over the same
// folders (testdata/routing-folders-fresh.json): 50 requests and 10
// irrelevant ones, written before anything was measured on it.
func TestRoutingFoldersFresh(t *testing.T) {
	holdTo(t, "skill folders, fresh held-out", "routing-folders-fresh.json", foldersFreshMinTop1, true, false)
}

// foldersFreshMinTop1 is the fresh folders set's floor: it measured
// 86.0% (43/50) before the lower evidence bar for skills without
// triggers and 88.0% with it, 0% false matches both times.
const foldersFreshMinTop1 = 0.84

// TestRoutingFoldersBlind routes a second held-out set over the same
// folders (testdata/routing-folders-blind.json): 69 requests over 65
// skills, most of them skills the other two folder sets never target, and
// 13 irrelevant ones, committed before anything was measured on it.
func TestRoutingFoldersBlind(t *testing.T) {
	holdTo(t, "skill folders, blind held-out", "routing-folders-blind.json", foldersBlindMinTop1, true, false)
}

// foldersBlindMinTop1 is its floor. Measured once, when the set was
// committed and before any routing change was measured on it: ranked
// top-1 94.2% (65/69), false matches 7.7% (1/13); spec mode matches none
// of these folders, which carry no trigger lists.
const foldersBlindMinTop1 = 0.90

// TestRoutingFoldersBlind2 routes the third held-out set over the skill
// folders (testdata/routing-folders-blind2.json): 211 requests over all
// 157 skills and 30 irrelevant ones (10 near misses, marked), one of the
// blind sets of 2026-11-27 (see bars in eval_test.go).
func TestRoutingFoldersBlind2(t *testing.T) {
	holdBars(t, "skill folders, blind2 held-out", "routing-folders-blind2.json", bars{top1: 192, top3: 195, falseMatches: 3})
}
