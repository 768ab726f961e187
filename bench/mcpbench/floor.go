package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// floorEnv names the environment variable that turns mcpbench into the
// floor server: -floor re-runs mcpbench itself with it set.
const floorEnv = "MCPBENCH_FLOOR_SERVER"

// runAsFloor runs mcpbench as the floor server floorEnv asks for, if
// any, and returns its exit status; false when floorEnv is unset.
func runAsFloor() (int, bool) {
	arg := os.Args[len(os.Args)-1]
	switch os.Getenv(floorEnv) {
	case "":
		return 0, false
	case replayEnvValue:
		return replayServer(arg, os.Stdin, os.Stdout), true
	default:
		return floorServer(arg, os.Stdin, os.Stdout), true
	}
}

// floorServer is the least a stdio MCP server can do for the folder mode:
// one goroutine, answers written from memory (initialize, ping, and
// resources/read of skill://NAME from DIR/NAME/SKILL.md, read once), no
// checks. Measured like the others, it shows what the transport and this
// client cost on the machine at hand: no server's round trip goes under
// it. It returns its exit status.
func floorServer(dir string, in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, maxLineBytes)
	w := bufio.NewWriter(out)
	texts := map[string][]byte{} // skill name → its SKILL.md as a JSON string
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		w.WriteString(`{"jsonrpc":"2.0","id":`)
		w.Write(req.ID)
		switch req.Method {
		case "initialize":
			fmt.Fprintf(w, `,"result":{"protocolVersion":%q,"capabilities":{"resources":{}},"serverInfo":{"name":"mcpbench-floor","version":"1"}}}`, legacyVersion)
		case "ping":
			w.WriteString(`,"result":{}}`)
		case "resources/read":
			name := strings.TrimPrefix(req.Params.URI, "skill://")
			text, ok := texts[name]
			if !ok {
				data, err := os.ReadFile(filepath.Join(dir, filepath.Base(name), "SKILL.md"))
				if err != nil {
					fmt.Fprintf(w, `,"error":{"code":-32002,"message":%q}}`, err.Error())
					break
				}
				text, _ = json.Marshal(string(data))
				texts[name] = text
			}
			fmt.Fprintf(w, `,"result":{"contents":[{"uri":%q,"mimeType":"text/markdown","text":%s}]}}`, req.Params.URI, text)
		default:
			fmt.Fprintf(w, `,"error":{"code":-32601,"message":"the floor server answers initialize, ping and resources/read only, not %s"}}`, strings.ReplaceAll(req.Method, `"`, ""))
		}
		w.WriteByte('\n')
		if err := w.Flush(); err != nil {
			return 1
		}
	}
	if sc.Err() != nil {
		return 1
	}
	return 0
}

// floorFolder is the floor server as a contender: mcpbench itself, run
// again with floorEnv set.
func floorFolder() (folderContender, error) {
	self, err := os.Executable()
	if err != nil {
		return folderContender{}, fmt.Errorf("-floor runs mcpbench itself again, but its path is unknown: %w", err)
	}
	return folderContender{
		label: "floor",
		argv:  func(dir, _ string) []string { return []string{self, dir} },
		env:   []string{floorEnv + "=1"},
		exits: true,
	}, nil
}
