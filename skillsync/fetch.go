package skillsync

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/internal/digest"
	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/mcpclient"
)

// Reading files: many requests in flight at once (Options.Workers), so a
// first sync is bounded by the bytes, not by round trips; every file is
// checked against the digest and size the server listed before its skill
// is written (docs/sync.md §4).

// readResource reads uri's bytes: the content with its URI (or the only
// one), as text or blob, at most max bytes.
func readResource(ctx context.Context, k *conn, uri string, max int64) ([]byte, error) {
	tctx, cancel := k.timed(ctx)
	contents, err := k.s.ReadResource(tctx, uri)
	cancel()
	if err != nil {
		return nil, err
	}
	var pick *mcpclient.ResourceContents
	for i := range contents {
		if contents[i].URI == uri {
			pick = &contents[i]
			break
		}
	}
	if pick == nil && len(contents) == 1 {
		pick = &contents[0]
	}
	if pick == nil {
		return nil, fmt.Errorf("resources/read of %s gave %d contents, none for that URI", textclip.Bytes(uri, quoteBytes), len(contents))
	}
	b, err := pick.Bytes()
	if err != nil {
		return nil, fmt.Errorf("resources/read of %s: %w", textclip.Bytes(uri, quoteBytes), err)
	}
	if int64(len(b)) > max {
		return nil, &tooLarge{uri: uri, size: int64(len(b)), max: max}
	}
	return b, nil
}

type tooLarge struct {
	uri       string
	size, max int64
}

func (e *tooLarge) Error() string {
	return fmt.Sprintf("%s is %d bytes, over the %d-byte limit", textclip.Bytes(e.uri, quoteBytes), e.size, e.max)
}

// eachLimited runs fn over items with at most n at once; the first error
// stops the rest and is returned.
func eachLimited[T any](ctx context.Context, n int, items []T, fn func(T) error) error {
	if len(items) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(items) {
					return
				}
				if err := fn(items[i]); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && err != context.Canceled {
		return err
	}
	return ctx.Err()
}

// fetched is one skill's files as read, or why it could not be.
type fetched struct {
	r    *remote
	data [][]byte // per r.Files
	// problem refuses the skill (a digest, size or read failure);
	// err stops the whole sync (the connection failed).
	problem string
	err     error
	mu      sync.Mutex
}

// fetcher reads skills' files with a pool of workers, many files in
// flight at once whatever the skills' sizes, and hands each skill over
// once all its files are in.
type fetcher struct {
	k     *conn
	lim   *Limits
	total atomic.Int64 // bytes read so far
	files atomic.Int64 // files read
}

type fileJob struct {
	f *fetched
	i int
	// left counts the skill's files still being read.
	left *atomic.Int64
}

// run reads every file of skills with workers requests in flight and
// calls done for each skill as it completes (from the worker that read
// its last file). It returns when all are done or ctx ends.
func (ft *fetcher) run(ctx context.Context, workers int, skills []*remote, done func(*fetched)) {
	jobs := make(chan fileJob, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ft.read(ctx, j)
				if j.left.Add(-1) == 0 {
					done(j.f)
				}
			}
		}()
	}
	for _, r := range skills {
		f := &fetched{r: r, data: make([][]byte, len(r.Files))}
		left := &atomic.Int64{}
		left.Store(int64(len(r.Files)))
		for i := range r.Files {
			select {
			case jobs <- fileJob{f: f, i: i, left: left}:
			case <-ctx.Done():
			}
		}
	}
	close(jobs)
	wg.Wait()
}

// read reads one file and checks it; a problem is recorded on its skill.
func (ft *fetcher) read(ctx context.Context, j fileJob) {
	file := j.f.r.Files[j.i]
	if ctx.Err() != nil {
		j.f.setErr(ctx.Err())
		return
	}
	max := ft.lim.MaxFileBytes
	if file.Size >= 0 {
		max = min(max, file.Size)
	}
	b, err := readResource(ctx, ft.k, file.URI, max)
	switch {
	case err == nil:
	case isTooLarge(err) && file.Size >= 0 && file.Size < ft.lim.MaxFileBytes:
		j.f.setProblem(fmt.Sprintf("%s: the server listed %d bytes and served more; the old version is kept", file.Path, file.Size))
		return
	case isTooLarge(err), isUnknown(err):
		j.f.setProblem(fmt.Sprintf("%s: %v", file.Path, err))
		return
	default:
		j.f.setErr(fmt.Errorf("skill %s: reading %s: %w", j.f.r.Name, file.Path, err))
		return
	}
	ft.files.Add(1)
	if n := ft.total.Add(int64(len(b))); n > ft.lim.MaxTotalBytes {
		j.f.setErr(fmt.Errorf("the files read pass %d bytes (--max-total-bytes)", ft.lim.MaxTotalBytes))
		return
	}
	if file.Size >= 0 && int64(len(b)) != file.Size {
		j.f.setProblem(fmt.Sprintf("%s: the server listed %d bytes and served %d; the old version is kept", file.Path, file.Size, len(b)))
		return
	}
	if file.Digest != "" {
		if got := digest.Of(b); got != file.Digest {
			j.f.setProblem(fmt.Sprintf("%s: the server's digest is %s, the bytes it served hash to %s; the old version is kept", file.Path, file.Digest, got))
			return
		}
	}
	j.f.data[j.i] = b
}

func isTooLarge(err error) bool {
	_, ok := err.(*tooLarge)
	return ok
}

func (f *fetched) setProblem(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.problem == "" {
		f.problem = p
	}
}

func (f *fetched) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}
