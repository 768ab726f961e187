package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFlagsHTTP(t *testing.T) {
	o, err := parseFlags([]string{"-http"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !o.http || !slices.Equal(o.sizes, []int{4000}) || !slices.Equal(o.httpClients, []int{1, 8, 64}) || o.httpDuration != 2*time.Second {
		t.Errorf("-http defaults: sizes %v clients %v duration %v", o.sizes, o.httpClients, o.httpDuration)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-http", "-http-clients", "1,x"}, "not a client count"},
		{[]string{"-http", "-http-clients", "0"}, "not a client count"},
		{[]string{"-http", "-http-duration", "0s"}, "must be positive"},
		{[]string{"-http", "-compare"}, "leave out -compare"},
	} {
		if _, err := parseFlags(tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseFlags(%q) err = %v, want %q", tt.args, err, tt.want)
		}
	}
}

func TestPercentileMS(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 100; i++ {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	if p50, p99 := percentileMS(lat, 0.5), percentileMS(lat, 0.99); p50 != 50 || p99 != 99 {
		t.Errorf("p50 %v p99 %v, want 50 and 99", p50, p99)
	}
	if percentileMS(nil, 0.99) != 0 || percentileMS(lat[:1], 0.99) != 1 {
		t.Error("percentileMS of empty or one-sample input")
	}
}

// fakeHTTPServer answers like agent3md serve, or with the wrong id.
func fakeHTTPServer(t *testing.T, wrongID bool) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if wrongID {
			req.ID++
		}
		var b bytes.Buffer
		if req.Method == "resources/read" {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"contents":[{"uri":"skill://x/SKILL.md","text":"---\n"}]}}`, req.ID)
		} else {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}]}}`, req.ID)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b.Bytes())
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func TestHTTPCell(t *testing.T) {
	w := words{Verbs: []string{"search", "render"}, Nouns: []string{"report"}}
	p := &httpProbe{words: w, size: 2, url: fakeHTTPServer(t, false)}
	for _, kind := range httpKinds {
		busy := false
		perSec, lat, err := p.cell(kind, 8, 100*time.Millisecond, func() { busy = true })
		if err != nil || perSec <= 0 || len(lat) == 0 || !busy || !slices.IsSorted(lat) {
			t.Errorf("%s: %v req/s, %d latencies, onBusy run %v, err %v", kind, perSec, len(lat), busy, err)
		}
	}
	p.url = fakeHTTPServer(t, true)
	if _, _, err := p.cell("get_skill", 4, 100*time.Millisecond, nil); err == nil || !strings.Contains(err.Error(), "not its answer") {
		t.Errorf("a mismatched id: err = %v", err)
	}
}
