//go:build !windows

package httpd_test

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/agent3md/agent3md/internal/httpd"
)

// How `agent3md serve` wires the server: endpoints from the MCP adapter,
// SIGHUP for Reload, SIGINT/SIGTERM for a graceful stop.
func Example() {
	var mcpHandler http.Handler // the MCP adapter for one agent
	srv, err := httpd.New(&httpd.Options{
		Addr:      "0.0.0.0:8765",
		TokenFile: "/etc/agent3md/tokens",
		Tokens:    []string{os.Getenv(httpd.TokenEnv)},
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, nil)),
	}, httpd.Endpoints{Agents: map[string]http.Handler{"devtools": mcpHandler}})
	if err != nil {
		return // the command prints err and exits 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			srv.Reload() // logs what it loaded or kept
		}
	}()
	if err := srv.Serve(ctx); err != nil {
		return // a *httpd.BindError, a listen error, or a cut-off shutdown
	}
}
