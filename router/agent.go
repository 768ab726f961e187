package router

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"

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

// routerSkills is the agent's skills as a Source, read in place
// from the scan (not a.Skills(), which is built on first use and copied
// per call): only the input names, which the scan keeps as
// agentfile.Inputs, are gathered into one array of their own.
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

// Body reads skill i's body through the loader, which checks it against
// the scan it came from; an agent file's body must also be the one this
// Source's scan saw (the loader re-scans a file edited since).
func (rs *routerSkills) Body(ctx context.Context, i int) (string, error) {
	s := &rs.skills[i]
	body, err := rs.agent.Body(ctx, s.Name)
	if err != nil {
		return "", err
	}
	if rs.file && crc32.Checksum([]byte(body), castagnoli) != rs.planes[s.Plane].CRC {
		return "", fmt.Errorf("skill %s: its body changed since the agent file was read; route again", s.Name)
	}
	return body, nil
}

// BodySum is the CRC-32C of skill i's body the scan recorded (0 for a
// skill folder, whose content hash covers it).
func (rs *routerSkills) BodySum(i int) uint32 { return rs.planes[rs.skills[i].Plane].CRC }
