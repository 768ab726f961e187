package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agent3md/agent3md/mcpclient"
)

// The comparison's floor (-compare -floor): how long the same client takes
// to get ours' own answers from the least server there can be. Before a
// size's runs, ours answers the first replaySample requests of every kind
// timed; mcpbench itself, run again as the replay server, then answers
// every request of a kind with those answers in turn, from memory, with
// no parsing beyond the method and tool name. Timed like the others, its
// figure is what our bytes cost the pipe and this client on the machine
// at hand: what is left of ours above it is the server's own work.

// replayEnvValue, as floorEnv's value, makes mcpbench the replay server.
const replayEnvValue = "replay"

// replaySample is how many answers of each kind are recorded.
const replaySample = 64

// replayAnswers is what the replay server serves: results as ours gave
// them, by replayKey.
type replayAnswers struct {
	Initialize json.RawMessage              `json:"initialize"`
	Answers    map[string][]json.RawMessage `json:"answers"`
}

// replayKey is the key a request's answers are filed under: the tool's
// name for tools/call, else the method.
func replayKey(method, tool string) string {
	if method == "tools/call" {
		return tool
	}
	return method
}

// recordAnswers serves agent with c, sends the first replaySample
// requests of each kind p times (and the route a session starts with),
// and writes what it answered to path.
func (p *cmpProbe) recordAnswers(c contender, cacheDir, path string) error {
	argv := c.argv(p.agent, cacheDir)
	s, err := startServerEnv(argv[0], argv[1:], c.env, p.timeout)
	if err != nil {
		return err
	}
	defer s.kill()
	rec := replayAnswers{Answers: map[string][]json.RawMessage{}}
	if rec.Initialize, err = s.call(initializeRequest()); err != nil {
		return err
	}
	if _, err := s.start(initializedNotification()); err != nil {
		return err
	}
	ask := func(key string, r mcpclient.Request) error {
		res, err := s.call(r)
		if err != nil {
			return err
		}
		rec.Answers[key] = append(rec.Answers[key], res)
		return nil
	}
	if err := ask("route_skill", routeRequest(p.words.text(0))); err != nil {
		return err
	}
	for _, kind := range p.kinds {
		for k := 0; k < replaySample; k++ {
			r := p.request(kind, k)
			tool := ""
			if params, ok := r.Params.(map[string]any); ok {
				tool, _ = params["name"].(string)
			}
			if err := ask(replayKey(r.Method, tool), r); err != nil {
				return fmt.Errorf("%s: %w", kind, err)
			}
		}
	}
	if _, err := s.finish(p.exitWait); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// replayServer answers from the recorded answers at path (recordAnswers)
// and returns its exit status. Answers are written in one buffer and
// flushed when no request is waiting, the least system calls a server can
// make.
func replayServer(path string, in io.Reader, out io.Writer) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay server:", err)
		return 2
	}
	var rec replayAnswers
	if err := json.Unmarshal(data, &rec); err != nil || rec.Initialize == nil {
		fmt.Fprintf(os.Stderr, "replay server: %s holds no recorded answers (%v)\n", path, err)
		return 2
	}
	next := map[string]int{}
	lr := mcpclient.NewLineReader(in, maxLineBytes)
	w := bufio.NewWriterSize(out, 64<<10)
	for {
		line, _, err := lr.Next() // a line over the bound comes back empty
		if len(bytes.TrimSpace(line)) > 0 {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &req) == nil && req.ID != nil {
				w.WriteString(`{"jsonrpc":"2.0","id":`)
				w.Write(req.ID)
				key := replayKey(req.Method, req.Params.Name)
				switch got := rec.Answers[key]; {
				case req.Method == "initialize":
					w.WriteString(`,"result":`)
					w.Write(rec.Initialize)
					w.WriteString("}\n")
				case len(got) > 0:
					w.WriteString(`,"result":`)
					w.Write(got[next[key]%len(got)])
					w.WriteString("}\n")
					next[key]++
				default:
					fmt.Fprintf(w, `,"error":{"code":-32601,"message":"the replay server recorded no answer for %q"}}`+"\n", key)
				}
			}
		}
		if err != nil || lr.Buffered() == 0 {
			if ferr := w.Flush(); ferr != nil {
				return 1
			}
		}
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			return 1
		}
	}
}

// replayFloor is the replay server as a contender: mcpbench itself, run
// again with floorEnv set, serving the answers recorded for each agent
// (contender.replay).
func replayFloor() (contender, error) {
	self, err := os.Executable()
	if err != nil {
		return contender{}, fmt.Errorf("-floor runs mcpbench itself again, but its path is unknown: %w", err)
	}
	answers := map[string]string{}
	return contender{
		label:  "floor",
		argv:   func(agent, _ string) []string { return []string{self, answers[agent]} },
		env:    []string{floorEnv + "=" + replayEnvValue},
		noCold: true,
		replay: answers,
	}, nil
}
