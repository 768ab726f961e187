package skillsdir

import "sync"

// pool runs jobs on a fixed number of workers; jobs may submit more jobs.
// The queue is a slice, not a goroutine per job, so a tree of 100,000
// folders costs a slice of closures rather than 100,000 parked stacks.
type pool struct {
	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []func()
	pending int // submitted and not finished
}

func newPool() *pool {
	p := &pool{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pool) submit(job func()) {
	p.mu.Lock()
	p.pending++
	p.jobs = append(p.jobs, job)
	p.mu.Unlock()
	p.cond.Signal()
}

// run works with n workers until every job, including those submitted
// while running, has finished.
func (p *pool) run(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(p.work)
	}
	wg.Wait()
}

func (p *pool) work() {
	for {
		p.mu.Lock()
		for len(p.jobs) == 0 && p.pending > 0 {
			p.cond.Wait()
		}
		if p.pending == 0 {
			p.mu.Unlock()
			p.cond.Broadcast()
			return
		}
		// LIFO: depth first keeps the queue as short as the tree is deep
		// times its fan-out, not as wide as a whole level.
		job := p.jobs[len(p.jobs)-1]
		p.jobs[len(p.jobs)-1] = nil
		p.jobs = p.jobs[:len(p.jobs)-1]
		p.mu.Unlock()

		job()

		p.mu.Lock()
		p.pending--
		done := p.pending == 0
		p.mu.Unlock()
		if done {
			p.cond.Broadcast()
		}
	}
}
