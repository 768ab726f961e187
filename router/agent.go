package router

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
)

// ForAgent builds (or reopens from cache) the routing index over an opened
// agent's skills: the one adapter from loader to router, shared by the MCP
// server and the CLI's route and index commands.
func ForAgent(ctx context.Context, a *loader.Agent, opts *Options) (*Router, error) {
	if a == nil {
		return nil, errors.New("router: ForAgent needs an agent (open one with loader.Open)")
	}
	r, err := NewFrom(ctx, newRouterSkills(a), opts)
	if err != nil {
		return nil, fmt.Errorf("building the routing index: %w", err)
	}
	return r, nil
}

// routerSkills is the agent's skills as a Source, read in place from the
// scan (a.Skills() is copied per call); only input names are gathered.
type routerSkills struct {
	agent  *loader.Agent
	file   bool // an agent file, whose planes carry their bodies' CRCs
	skills []agentfile.Skill
	planes []agentfile.Plane
	inputs []string // every skill's input names, in skill order
	starts []int32  // skill i's names are inputs[starts[i]:starts[i+1]]
}

func newRouterSkills(a *loader.Agent) *routerSkills {
	cat, info := a.Scanned()
	n := 0
	for i := range info.Skills {
		n += len(info.Skills[i].Inputs)
	}
	rs := &routerSkills{agent: a, file: len(a.Folders()) == 0, skills: info.Skills, planes: cat.Planes, inputs: make([]string, 0, n), starts: make([]int32, len(info.Skills)+1)}
	for i := range info.Skills {
		for _, in := range info.Skills[i].Inputs {
			rs.inputs = append(rs.inputs, in.Name)
		}
		rs.starts[i+1] = int32(len(rs.inputs))
	}
	return rs
}

func (rs *routerSkills) Len() int { return len(rs.skills) }

func (rs *routerSkills) Phrases(i int) (string, float64, []string) {
	s := &rs.skills[i]
	return s.Name, s.Z, s.Triggers
}

func (rs *routerSkills) Skill(i int) Skill {
	s := &rs.skills[i]
	tool := ""
	if s.HasTool {
		tool = s.Tool
	}
	lo, hi := rs.starts[i], rs.starts[i+1]
	return Skill{
		Name:        s.Name,
		Z:           s.Z,
		Triggers:    s.Triggers,
		Description: rs.planes[s.Plane].Description,
		Tool:        tool,
		Inputs:      rs.inputs[lo:hi:hi],
	}
}

// EachBody reads every body in skill order: from skill folders through
// the loader; from an agent file in one buffered pass (the loader's
// mapping would count the whole file as resident), each checked against
// the scan's CRC so the index holds one version of the file.
func (rs *routerSkills) EachBody(ctx context.Context, fn func(i int, body []byte) error) error {
	if !rs.file {
		for i := range rs.skills {
			body, err := rs.agent.Body(ctx, rs.skills[i].Name)
			if err != nil {
				return fmt.Errorf("skill %s: %w", rs.skills[i].Name, err)
			}
			if err := fn(i, []byte(body)); err != nil {
				return err
			}
		}
		return nil
	}
	f, err := os.Open(rs.agent.Path())
	if err != nil {
		return fmt.Errorf("reading the skills' bodies: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, bodyReadBuffer)
	var pos int64
	var buf []byte
	for i := range rs.skills {
		if i%1000 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		s := &rs.skills[i]
		pl := &rs.planes[s.Plane]
		span := pl.Body
		if span.Start < pos || span.End < span.Start {
			return fmt.Errorf("skill %s: body span [%d, %d) out of file order", s.Name, span.Start, span.End)
		}
		if _, err := r.Discard(int(span.Start - pos)); err != nil {
			return fmt.Errorf("skill %s: %w (%v)", s.Name, agentfile.ErrChanged, err)
		}
		n := int(span.Len())
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return fmt.Errorf("skill %s: %w (%v)", s.Name, agentfile.ErrChanged, err)
		}
		pos = span.End
		body := agentfile.Normalize(buf[:n])
		if crc32.Checksum(body, castagnoli) != pl.CRC {
			return fmt.Errorf("skill %s: its body %w; route again", s.Name, agentfile.ErrChanged)
		}
		if err := fn(i, body); err != nil {
			return err
		}
	}
	return nil
}

const bodyReadBuffer = 64 << 10 // EachBody's read buffer

// BodySum is the CRC-32C of skill i's body the scan recorded (0 for a
// skill folder, whose content hash covers it).
func (rs *routerSkills) BodySum(i int) uint32 { return rs.planes[rs.skills[i].Plane].CRC }
