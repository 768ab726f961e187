package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// probe holds what every measurement of one synthetic agent needs.
type probe struct {
	bin      string        // the agent3md binary
	agent    string        // the agent file
	timeout  time.Duration // bound on every read from the server
	exitWait time.Duration // how long the server may take to exit after EOF
	pipeline bool          // send route_skill before the initialize answer
	requests int           // route requests in the throughput measurement
	words    words         // request vocabulary this agent's skills cover
}

// routeSample is the outcome of one spawn → first route_skill measurement.
type routeSample struct {
	ms    float64 // spawn to route answer
	rssMB float64 // peak RSS of that server process
}

// serveSample is the outcome of one handshake + throughput measurement.
type serveSample struct {
	initMS       float64 // spawn to initialize answer
	routesPerSec float64 // pipelined route_skill throughput
	rssMB        float64 // peak RSS after all requests
	misses       int     // route answers with no skill matched
	answerKB     float64 // mean size of a route_skill result, in KB
}

// spawn starts `agent3md mcp` on p.agent with cacheDir as its index cache.
func (p *probe) spawn(cacheDir string) (*server, error) {
	return startServer(p.bin, []string{"mcp", "--cache-dir", cacheDir, p.agent}, p.timeout)
}

// firstRoute measures spawn → first route_skill answer: the
// initialize request, notifications/initialized and a route_skill call go
// out together, unless p.pipeline is off, in which case the call waits for
// the initialize answer as a cautious client's would.
func (p *probe) firstRoute(cacheDir string, k int) (routeSample, error) {
	s, err := p.spawn(cacheDir)
	if err != nil {
		return routeSample{}, err
	}
	defer s.kill()
	init, err := s.start(initializeRequest())
	if err != nil {
		return routeSample{}, err
	}
	if !p.pipeline {
		if _, err := s.result(init[0]); err != nil {
			return routeSample{}, err
		}
	}
	if _, err := s.start(initializedNotification()); err != nil {
		return routeSample{}, err
	}
	route, err := s.start(routeRequest(p.words.text(k)))
	if err != nil {
		return routeSample{}, err
	}
	if err := p.awaitRoute(s, init[0], route[0]); err != nil {
		return routeSample{}, err
	}
	elapsed := route[0].Timing().Answered.Sub(s.started())
	rss, err := s.finish(p.exitWait)
	if err != nil {
		return routeSample{}, err
	}
	return routeSample{ms: ms(elapsed), rssMB: rss}, nil
}

// awaitRoute waits for the initialize answer (pipelined before the route)
// and the route's, and checks both.
func (p *probe) awaitRoute(s *server, init, route *mcpclient.Pending) error {
	if _, err := s.result(init); err != nil {
		return fmt.Errorf("waiting for the first route_skill answer: %w", err)
	}
	res, err := s.result(route)
	if err == nil {
		_, err = routeAnswer(res)
	}
	if err != nil && p.pipeline {
		err = fmt.Errorf("%w\n  (route_skill was sent before the initialize answer, as pipelining clients do; -pipeline=false waits for it)", err)
	}
	if err != nil {
		return fmt.Errorf("waiting for the first route_skill answer: %w", err)
	}
	return s.checkUnexpected()
}

// serve measures spawn → initialize answer, then pipelined route_skill
// throughput, then peak RSS and a prompt, clean exit after EOF.
func (p *probe) serve(cacheDir string, run int) (serveSample, error) {
	s, err := p.spawn(cacheDir)
	if err != nil {
		return serveSample{}, err
	}
	defer s.kill()
	init, err := s.start(initializeRequest())
	if err != nil {
		return serveSample{}, err
	}
	if _, err := s.result(init[0]); err != nil {
		return serveSample{}, err
	}
	out := serveSample{initMS: ms(init[0].Timing().Answered.Sub(s.started()))}
	if _, err := s.start(initializedNotification()); err != nil {
		return serveSample{}, err
	}
	t, err := p.throughput(s, run)
	if err != nil {
		return serveSample{}, err
	}
	out.routesPerSec = float64(p.requests) / t.elapsed.Seconds()
	out.misses = t.misses
	out.answerKB = float64(t.bytes) / float64(p.requests) / 1024
	if out.rssMB, err = s.finish(p.exitWait); err != nil {
		return serveSample{}, err
	}
	return out, nil
}

// throughput writes p.requests route_skill calls one by one without
// waiting, from a second goroutine, while this one reads and checks the
// answers; the time is the first write to the last answer's arrival.
func (p *probe) throughput(s *server, run int) (burst, error) {
	sent := make(chan *mcpclient.Pending, p.requests)
	writeErr := make(chan error, 1)
	go func() {
		defer close(sent)
		for i := 0; i < p.requests; i++ {
			ps, err := s.start(routeRequest(p.words.text(run*p.requests + i)))
			if err != nil {
				writeErr <- err
				return
			}
			sent <- ps[0]
		}
		writeErr <- nil
	}()
	var (
		b   burst
		all []*mcpclient.Pending
	)
	for pd := range sent {
		res, err := s.result(pd)
		if err == nil {
			var text string
			if text, err = routeAnswer(res); text == "no skill matched" {
				b.misses++
			}
		}
		if err != nil {
			return b, fmt.Errorf("pipelined routes: %d of %d answered: %w", len(all), p.requests, err)
		}
		b.bytes += len(res)
		all = append(all, pd)
	}
	if err := <-writeErr; err != nil {
		return b, err
	}
	if err := s.checkUnexpected(); err != nil {
		return b, fmt.Errorf("pipelined routes: %w", err)
	}
	b.elapsed = mcpclient.Span(all)
	return b, nil
}

// burst is the outcome of one throughput measurement.
type burst struct {
	elapsed time.Duration // first write to last answer
	misses  int           // answers that matched no skill
	bytes   int           // total size of the results
}

// routeAnswer checks a tools/call result for route_skill and returns its
// text; a tool error result is an error.
func routeAnswer(raw json.RawMessage) (string, error) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("route_skill result is not a tool result: %v", err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("route_skill returned a tool error: %.300s", text.String())
	}
	if text.Len() == 0 {
		return "", fmt.Errorf("route_skill returned no text content")
	}
	return text.String(), nil
}

// initializeRequest is the legacy handshake's first request.
func initializeRequest() mcpclient.Request {
	return request("initialize", map[string]any{
		"protocolVersion": legacyVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpbench", "version": "1"},
	})
}

// initializedNotification completes the legacy handshake.
func initializedNotification() mcpclient.Request {
	return mcpclient.Request{Method: "notifications/initialized", Notification: true}
}

// routeRequest calls the route_skill tool with text.
func routeRequest(text string) mcpclient.Request {
	return request("tools/call", map[string]any{"name": "route_skill", "arguments": map[string]any{"text": text}})
}

// ms converts a duration to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
