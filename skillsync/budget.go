package skillsync

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync/atomic"

	"github.com/agent3md/agent3md/internal/textclip"
)

// A pass's listings are what the server says it serves, and a server can
// say anything: pages without end, each with a fresh cursor; cursors of a
// megabyte; a megabyte of frontmatter per skill; folders that list
// themselves. So one pass's listings draw on one budget (docs/sync.md §5):
// at most --max-pages pages in all (skills/list, resources/list and every
// resources/directory/read together), each cursor at most
// --max-cursor-bytes, and at most --max-listing-bytes of listing entries
// (URIs, frontmatter, file lists, counted as the pages give them, kept or
// refused: what is read is what costs). Past a bound the listing
// ends with an error naming the flag, and the pass writes nothing. A
// cursor the listing has already had ends it too: the server's paging
// loops. Cursors are remembered by digest, so remembering them costs 32
// bytes each whatever their length.

// budget is what one discovery may still read and keep; the directory
// walks of dynamic skills run at once and share it.
type budget struct {
	lim  *Limits
	read atomic.Int64 // pages read
	kept atomic.Int64 // bytes kept of the listings
}

func newBudget(lim *Limits) *budget { return &budget{lim: lim} }

// page counts one page read.
func (b *budget) page(method string) error {
	if n := b.read.Add(1); n > int64(b.lim.MaxPages) {
		return fmt.Errorf("%s: more than %d pages of listings in one pass (--max-pages); the server's paging does not end", method, b.lim.MaxPages)
	}
	return nil
}

// keep counts n bytes of listing kept.
func (b *budget) keep(n int) error {
	if total := b.kept.Add(int64(n)); total > b.lim.MaxListingBytes {
		return fmt.Errorf("the listings give over %d bytes of entries (--max-listing-bytes)", b.lim.MaxListingBytes)
	}
	return nil
}

// pages reads a cursor-paged listing, calling read for each page with
// the cursor of the page ("" for the first) until read gives no next
// cursor. A cursor over --max-cursor-bytes, one given twice, or a page
// past --max-pages ends it with an error; a cursor the server no longer
// takes is errRelist.
func (b *budget) pages(ctx context.Context, method string, read func(cursor string) (next string, err error)) error {
	seen := map[[sha256.Size]byte]bool{}
	cursor := ""
	for {
		if err := b.page(method); err != nil {
			return err
		}
		next, err := read(cursor)
		if err != nil && cursor != "" && isUnknown(err) {
			return fmt.Errorf("%s: %w (%v)", method, errRelist, err)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if next == "" {
			return nil
		}
		if len(next) > b.lim.MaxCursorBytes {
			return fmt.Errorf("%s: the server's next cursor is %d bytes, over the %d-byte bound (--max-cursor-bytes)", method, len(next), b.lim.MaxCursorBytes)
		}
		sum := sha256.Sum256([]byte(next))
		if seen[sum] {
			return fmt.Errorf("%s: the server gave cursor %q twice; its paging loops", method, textclip.Bytes(next, quoteBytes))
		}
		seen[sum] = true
		cursor = next
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}
