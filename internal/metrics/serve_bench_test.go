package metrics

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/httpd"
)

// BenchmarkServe is the whole HTTP round trip of a small request on
// loopback through httpd's chain, without an Observer and with the
// metrics: the difference is what counting costs a request as served.
// The endpoint answers at once, so the round trip is as short as serve's
// ever is and the share of the metrics as large.
func BenchmarkServe(b *testing.B) {
	endpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpd.SetMCPMethod(r.Context(), "tools/list")
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`+"\n")
	})
	for _, tt := range []struct {
		name    string
		metrics bool
	}{{"none", false}, {"metrics", true}} {
		b.Run(tt.name, func(b *testing.B) {
			opts := &httpd.Options{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if tt.metrics {
				m := New(Options{Methods: []string{"tools/list"}})
				m.AddAgent("forge")
				opts.Observer, opts.Metrics = m, m.Handler()
			}
			srv, err := httpd.New(opts, httpd.Endpoints{Agents: map[string]http.Handler{"forge": endpoint}})
			if err != nil {
				b.Fatal(err)
			}
			if err := srv.Listen(); err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ctx) }()
			defer func() { cancel(); <-done }()
			url := "http://" + srv.Addr().String() + "/mcp"
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			for b.Loop() {
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
