package httpd

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzGuard: any Host and Origin give an answer, never a panic, and what
// is let through over loopback names a loopback or listed host.
func FuzzGuard(f *testing.F) {
	for _, s := range [][2]string{
		{"localhost:8765", "http://localhost:3000"},
		{"evil.example.com", "http://evil.example.com"},
		{"[::1]:1", "null"},
		{"[::1", "http://[::1"},
		{"127.0.0.1.", "HTTPS://App.Example.com/"},
		{"", "%zz"},
	} {
		f.Add(s[0], s[1])
	}
	g := newGuard(&Options{AllowOrigins: []string{"https://app.example.com"}, AllowHosts: []string{"mcp.example.com"}})
	f.Fuzz(func(t *testing.T, host, origin string) {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		ok := g.check(w, r)
		if ok != (w.Code == 200 && w.Body.Len() == 0) {
			t.Fatalf("check said %v but wrote %d", ok, w.Code)
		}
		if ok {
			name := strings.TrimSuffix(strings.ToLower(hostName(host)), ".")
			if !isLoopbackName(name) && name != "mcp.example.com" {
				t.Fatalf("host %q let through", host)
			}
		}
	})
}
