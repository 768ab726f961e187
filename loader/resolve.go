package loader

import (
	"context"
	"strings"
)

// Resolve returns the skill then its dependencies depth-first in body order
// (docs/format.md §11): each skill once, links to the identity or to missing
// planes skipped. The walk uses an explicit stack, so chains of any length
// resolve without deep recursion, and it terminates on cycles. All bodies
// come from one scan of the file.
func (a *Agent) Resolve(ctx context.Context, name string) ([]Resolved, error) {
	var out []Resolved
	err := a.view(ctx, func(st *state) error {
		i, err := st.lookup(name)
		if err != nil {
			return err
		}
		out = out[:0]
		for k, j := range st.chain(i) {
			if k%1024 == 1023 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			s := &st.info.Skills[j]
			body, err := st.body(s.Plane)
			if err != nil {
				return err
			}
			out = append(out, Resolved{Name: s.Name, Z: s.Z, Body: body})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ChainWithin reports whether skill name's resolve chain (the skill and
// every skill it reaches through its links) holds at most max skills. It
// is a hint for scheduling, read from the catalog in force without
// checking the file: a server answers a short chain on its reading
// goroutine and hands a long one to a worker. An unknown name reports
// true: its answer is a quick error.
func (a *Agent) ChainWithin(name string, max int) bool {
	st := a.current()
	i, ok := st.find(name)
	if !ok {
		return true
	}
	_, complete := st.chainUpTo(i, max)
	return complete
}

// chain returns the skill indices of skill i's resolve order: i first, then
// a pre-order depth-first walk of its links in body order, each skill once.
func (st *state) chain(i int) []int {
	order, _ := st.chainUpTo(i, -1)
	return order
}

// chainUpTo is chain stopped after limit skills (no limit when negative);
// complete reports whether the walk ended before it. Popping marks a skill
// visited and pushes its links in reverse, which visits them exactly as
// the recursive definition would.
func (st *state) chainUpTo(i, limit int) (order []int, complete bool) {
	var (
		seen  = map[int]bool{}
		stack = []int{i}
	)
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[j] {
			continue
		}
		if len(order) == limit {
			return order, false
		}
		seen[j] = true
		order = append(order, j)
		deps := st.deps[j]
		for k := len(deps) - 1; k >= 0; k-- {
			if !seen[deps[k]] {
				stack = append(stack, deps[k])
			}
		}
	}
	return order, true
}

// ChainText is a resolve chain as one text, as the resolve_skill tool,
// prompts/get and `agent3md resolve` give it: a "### name" section per
// skill, then its body, sections separated by a blank line.
func ChainText(chain []Resolved) string {
	parts := make([]string, len(chain))
	for i, r := range chain {
		parts[i] = "### " + r.Name + "\n" + r.Body
	}
	return strings.Join(parts, "\n\n")
}

// ResolveText is Resolve's chain of name as ChainText.
func (a *Agent) ResolveText(ctx context.Context, name string) (string, error) {
	chain, err := a.Resolve(ctx, name)
	if err != nil {
		return "", err
	}
	return ChainText(chain), nil
}
