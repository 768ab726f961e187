package loader

import (
	"errors"
	"fmt"
	"os"

	"github.com/agent3md/agent3md/agentfile"
)

// Projection is the agent's agent3md/1 JSON projection (docs/format.md):
// what `agent3md export` prints and a server serves as
// agent3md://manifest. For an agent file it is agentfile.Project over the
// catalog in force and the file's bytes, every skill body read once for
// its links (and, with bodies, included). For skill folders it is
// agentfile.ProjectLinked over the synthesized catalog, whose links are
// known without reading a body; bodies are not projected for them.
func (a *Agent) Projection(bodies bool) (*agentfile.Projection, error) {
	if a.Folders() != nil {
		if bodies {
			return nil, errors.New("the projection of skill folders holds no bodies; read a skill's SKILL.md instead")
		}
		return agentfile.ProjectLinked(a.Scanned()), nil
	}
	f, err := os.Open(a.Path())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := agentfile.Project(a.Catalog(), f, bodies)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path(), err)
	}
	return p, nil
}
