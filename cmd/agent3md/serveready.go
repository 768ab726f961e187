package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// readyAgent is one agent serve opened, logged once the port is bound.
type readyAgent struct {
	name, slug, file string
	skills           int
}

// logReady logs each agent with the whole URL a member pastes into sync
// or a host (docs/http.md §1). It runs after Listen: a port in use stops
// the start before any line says an agent is ready.
func logReady(logger *slog.Logger, agents []readyAgent, addrFlag string, bound net.Addr, tls bool) {
	for _, r := range agents {
		logger.Info("agent ready", "agent", r.name, "endpoint", "/mcp/"+r.slug,
			"url", endpointURL(addrFlag, bound, tls, "/mcp/"+r.slug), "skills", r.skills, "file", r.file)
	}
}

// endpointURL is the URL of path on the server bound at bound for
// --addr addrFlag: the host name --addr gave when it gave one, this
// machine's name when it bound every interface (a loopback address would
// not reach it from another machine), else the address bound.
func endpointURL(addrFlag string, bound net.Addr, tls bool, path string) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	host, port := "127.0.0.1", ""
	if ta, ok := bound.(*net.TCPAddr); ok {
		host, port = ta.IP.String(), strconv.Itoa(ta.Port)
		if ta.IP.IsUnspecified() {
			host = "localhost"
			if h, err := os.Hostname(); err == nil && h != "" {
				host = h
			}
		}
	}
	if flagHost, _, err := net.SplitHostPort(addrFlag); err == nil && flagHost != "" && net.ParseIP(flagHost) == nil {
		host = flagHost
	}
	return scheme + "://" + net.JoinHostPort(host, port) + path
}

// listenError leads a failed bind with its fix: another port.
func listenError(err error, addrFlag string) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	what, fix := addrFlag, "--addr 127.0.0.1:8766"
	if strings.Contains(err.Error(), "metrics") {
		what, fix = "the metrics address", "--metrics-addr 127.0.0.1:9091"
	} else if host, _, e := net.SplitHostPort(addrFlag); e == nil {
		fix = "--addr " + net.JoinHostPort(host, "8766")
	}
	return fmt.Errorf("%s is in use (another agent3md serve?): pick a free port, e.g. %s, or stop what holds it (%w)", what, fix, err)
}
