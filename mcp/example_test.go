package mcp_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

// Serve answers a stateless 2026-07-28 tool call read from stdin; it
// returns once stdin ends and every response is written.
func ExampleServe() {
	agent, err := loader.Open("testdata/ada.3md", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer agent.Close()
	stdin := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fill_skill","arguments":{"name":"commit","values":{"message":"it's done"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
	err = mcp.Serve(context.Background(), stdin, os.Stdout, &mcp.Options{
		Source:  mcp.Loaded(agent),
		Router:  &router.Options{NoCache: true},
		Version: "1.0.0",
	})
	fmt.Println("Serve returned:", err)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"agent3md:Ada","title":"Ada","version":"1.0.0"}},"content":[{"type":"text","text":"command: git commit -m 'it'\\''s done'\nready: true\ncost: medium\nconfirm: ask the user before running this command: the skill is tagged cost=medium"}],"structuredContent":{"skill":"commit","command":"git commit -m 'it'\\''s done'","hasTool":true,"missing":[],"invalid":[],"unknown":[],"omitted":[],"unbound":[],"unsafe":[],"plain":true,"ready":true,"cost":"medium","confirm":true,"confirmReasons":["the skill is tagged cost=medium"]}}}
	// Serve returned: <nil>
}
