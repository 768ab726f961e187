package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/internal/bytesize"
	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/internal/memlimit"
	"github.com/agent3md/agent3md/internal/metrics"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
)

// serveCmd is `agent3md serve`: the same protocol core as `mcp`, over
// stateless Streamable HTTP, one endpoint per agent (docs/http.md).
func (a *app) serveCmd() *cobra.Command {
	var (
		o          httpd.Options
		def        string
		allowOrig  []string
		allowHosts []string
		sf         serverFlags
	)
	c := &cobra.Command{
		Use:   "serve FILE|DIR...",
		Short: "Serve agents over MCP Streamable HTTP, for a team or an HTTP-only client",
		Long: `serve serves each FILE at /mcp/<agent-slug> over stateless Streamable HTTP
(and at /mcp when there is one agent, or the one named by --default): every
protocol revision, the tools, skill resources, prompts, the skills extension
and completion, with live reload — the same core as 'agent3md mcp'. A DIR
is a folder of Agent Skills folders served as one agent (named by its
AGENT.md, else the folder); --claude-skills and the like add that user
folder as one more agent when it exists (docs/skill-folders.md §10).

It binds 127.0.0.1:8765 unless told otherwise. A non-loopback --addr needs a
bearer token (--token-file FILE, one per line, or AGENT3MD_TOKEN) unless
--insecure is given. --tls-cert and --tls-key turn on HTTPS. SIGHUP reloads
the token file and the certificate; SIGINT and SIGTERM finish the requests in
flight, then stop (a second one stops at once). /healthz answers probes
without authentication; /metrics gives Prometheus metrics behind the token,
or on --metrics-addr without one.`,
		Example: `  agent3md serve examples/devtools.3md
  AGENT3MD_TOKEN=s3cret agent3md serve --addr 0.0.0.0:8765 --tls-cert cert.pem --tls-key key.pem examples/*.3md`,
		Args: args(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, files []string) error {
			files = append(files, sf.folders.existing(a.stderr)...)
			if len(files) == 0 {
				return ioError(fmt.Errorf("serve needs an agent FILE or a skills DIR (or --claude-skills and the like for a folder that exists)\nusage: %s", c.UseLine()))
			}
			logger, mem, err := sf.start(a)
			if err != nil {
				return err
			}
			if err := o.Check(); err != nil {
				return ioError(err)
			}
			if o.MaxAnswerMemory < int64(sf.maxAnswer) {
				return ioError(fmt.Errorf("--max-answer-memory %d is less than --max-answer-bytes %d: one answer of the largest size could never be sent; raise --max-answer-memory", o.MaxAnswerMemory, sf.maxAnswer))
			}
			// Deferred first, so it ends last: a stop that hangs anywhere
			// below is still ended by a second signal or the grace.
			stops, endStops := httpd.WatchStopSignals(logger, o.ShutdownTimeout, func() { os.Exit(exitUsage) })
			defer endStops()
			// SIGHUP is caught from here on: one sent while the agents
			// load (or just as the server starts listening) is a reload
			// once it serves, not the signal's default, which ends the
			// process.
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			if tok := strings.TrimSpace(os.Getenv(httpd.TokenEnv)); tok != "" {
				o.Tokens = append(o.Tokens, tok)
			}
			o.AllowOrigins, o.AllowHosts, o.Logger = allowOrig, allowHosts, logger
			// Metrics count from the first agent opened (its reloads) to
			// the end (docs/http.md §13).
			m := metrics.New(metrics.Options{Methods: mcp.Methods(), Version: buildVersion().Version, Logger: logger})
			o.Observer, o.Metrics = m, m.Handler()
			a.useCache = true
			ctx := c.Context()
			sv, err := a.openServed(ctx, files, servedOptions{def: def, flags: &sf, maxBody: o.MaxBodyBytes, logger: logger, onAgent: m.AddAgent, mem: mem})
			if err != nil {
				sv.Close() // what opened before the failure
				return err
			}
			defer sv.Close()
			servers, endpoints := sv.servers, sv.ep
			// Loaded: from here the footprint is the agents plus what
			// clients make the server hold, which the heap limit keeps
			// close to what it holds (internal/memlimit) rather than twice that.
			restoreMem := mem.ApplyUntilReturn(logger)
			defer restoreMem()
			srv, err := httpd.New(&o, endpoints)
			if err != nil {
				return ioError(credentialFlagError(err))
			}
			if err := m.WatchServer(srv); err != nil {
				return ioError(err)
			}
			if err := srv.Listen(); err != nil {
				return ioError(listenError(err, o.Addr))
			}
			logReady(logger, sv.ready, o.Addr, srv.Addr(), o.TLSCert != "")
			stops.Serving()
			logger.Info("agent3md serving over HTTP", "addr", srv.Addr().String(), "agents", len(servers), "tls", o.TLSCert != "", "version", buildVersion().Version)
			go func() {
				for {
					select {
					case <-ctx.Done():
						return
					case <-hup:
						_ = srv.Reload() // it logs what it loaded or why it kept the old ones
					}
				}
			}()
			// Open listen streams are answered when the server stops, so
			// graceful shutdown does not wait on them.
			go func() {
				<-ctx.Done()
				for _, s := range servers {
					s.Close()
				}
			}()
			if err := srv.Serve(ctx); err != nil && !errors.Is(err, context.Canceled) {
				return ioError(err)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Addr, "addr", httpd.DefaultAddr, "host:port to listen on; a non-loopback address needs a token or --insecure")
	f.StringVar(&def, "default", "", "the agent slug served at /mcp when there are several")
	f.StringVar(&o.TokenFile, "token-file", "", "bearer tokens, one per line (# comments); also AGENT3MD_TOKEN; reloaded on SIGHUP")
	f.BoolVar(&o.Insecure, "insecure", false, "allow a non-loopback --addr without any token (only behind an authenticating proxy)")
	f.StringSliceVar(&allowOrig, "allow-origin", nil, "an Origin accepted besides loopback ones (repeatable; * for any)")
	f.StringSliceVar(&allowHosts, "allow-host", nil, "a Host name accepted besides localhost, 127.0.0.1 and [::1] (repeatable), e.g. the public name behind a proxy")
	f.StringVar(&o.TLSCert, "tls-cert", "", "PEM certificate for HTTPS (with --tls-key; TLS 1.2+; reloaded on SIGHUP)")
	f.StringVar(&o.TLSKey, "tls-key", "", "PEM private key for HTTPS")
	bytesize.Int64Var(f, &o.MaxCredentialBytes, "max-credential-bytes", httpd.DefaultMaxCredentialBytes, fmt.Sprintf("largest --token-file, --tls-cert or --tls-key (1 to %d; units B, KiB, MiB, GiB)", int64(httpd.MaxCredentialBytesCeiling)))
	f.DurationVar(&o.CredentialTimeout, "credential-timeout", httpd.DefaultCredentialTimeout, "longest time to open and read one credential file, at start and on SIGHUP (a stalled mount is refused, not waited for)")
	f.StringVar(&o.MetricsAddr, "metrics-addr", "", "serve /metrics on this host:port of its own, without a token (loopback unless --metrics-public), instead of on --addr behind the token")
	f.BoolVar(&o.MetricsPublic, "metrics-public", false, "allow a non-loopback --metrics-addr (a firewall or network policy guards it)")
	bytesize.Int64Var(f, &o.MaxBodyBytes, "max-body-bytes", httpd.DefaultMaxBodyBytes, fmt.Sprintf("largest request body (1 to %d; units B, KiB, MiB, GiB); past it the answer is 413", int64(httpd.MaxBodyBytesCeiling)))
	bytesize.Int64Var(f, &o.MaxBodyMemory, "max-body-memory", httpd.DefaultMaxBodyMemory, fmt.Sprintf("bytes of request bodies held across all requests, from the first byte read to the request's end, at least --max-body-bytes (up to %d; units B, KiB, MiB, GiB); past it the answer is 503 with Retry-After", int64(httpd.MaxAnswerMemoryCeiling)))
	f.IntVar(&o.MaxConcurrent, "max-concurrent", httpd.DefaultMaxConcurrent, "requests served at once; past it the answer is 503 with Retry-After")
	bytesize.Int64Var(f, &o.MaxAnswerMemory, "max-answer-memory", httpd.DefaultMaxAnswerMemory, fmt.Sprintf("bytes of answers held for writing across all requests, at least --max-answer-bytes (up to %d; units B, KiB, MiB, GiB); past it the answer is 503 with Retry-After", int64(httpd.MaxAnswerMemoryCeiling)))
	f.IntVar(&o.MaxStreams, "max-streams", httpd.DefaultMaxStreams, "subscriptions/listen streams open at once, besides --max-concurrent; past it the answer is 503")
	f.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", httpd.DefaultShutdownTimeout, "how long requests in flight may finish after SIGINT/SIGTERM")
	f.DurationVar(&o.WriteTimeout, "write-timeout", httpd.DefaultWriteTimeout, "longest time to write one answer (event streams extend it as they go)")
	a.addServerFlags(f, &sf, serverUsage{
		maxAnswer: fmt.Sprintf("largest tool answer, in bytes, as for mcp (%d to %d; units B, KiB, MiB, GiB)", minAnswerBytes, maxAnswerCeiling),
		noWatch:   "serve the files as loaded: do not watch them for changes",
		memLimit:  "Go soft memory limit once loaded, as for mcp: auto (follows the live heap plus a margin), off (Go's default, or GOMEMLIMIT), or a size such as 512MiB",
	})
	return c
}

// credentialFlags name the flag of each kind of credential file.
var credentialFlags = map[string]string{
	httpd.KindTokenFile: "--token-file",
	httpd.KindTLSCert:   "--tls-cert",
	httpd.KindTLSKey:    "--tls-key",
	httpd.KindCAFile:    "--ca-file",
}

// credentialFlagError words a credential file error with the flag that
// named the file ("--token-file /run/tokens is a named pipe, …").
func credentialFlagError(err error) error {
	var ce *httpd.CredentialError
	if errors.As(err, &ce) {
		if flag, ok := credentialFlags[ce.Kind]; ok {
			return fmt.Errorf("%s %s%s", flag, ce.Path, ce.Reason())
		}
	}
	return err
}

// servedOptions are serve's settings for the agents it opens.
type servedOptions struct {
	def     string // the slug served at /mcp
	flags   *serverFlags
	maxBody int64
	logger  *slog.Logger
	mem     memlimit.Limit
	// onAgent, when set, is told each agent's slug and gives the hook
	// its reloads report to (the metrics').
	onAgent func(slug string) (onReload func(error))
}

// servedAgents is what openServed built: one protocol core per agent
// (each watching its agent) and their endpoints.
type servedAgents struct {
	servers []*mcp.Server
	ep      httpd.Endpoints
	ready   []readyAgent // logged once the port is bound (logReady)
}

// Close closes the servers; each stops its watcher before it returns, so
// none logs into an output the command has left behind.
func (s *servedAgents) Close() {
	for _, srv := range s.servers {
		srv.Close()
	}
}

// openServed opens every agent (so a broken file stops the start with its
// reason, before anything listens) and builds one protocol core and one
// endpoint each, named by the agent's slug.
func (a *app) openServed(ctx context.Context, files []string, so servedOptions) (*servedAgents, error) {
	def, maxBody, logger, ff := so.def, so.maxBody, so.logger, &so.flags.folders
	sv := &servedAgents{ep: httpd.Endpoints{Agents: map[string]http.Handler{}, Default: def}}
	from := map[string]string{}
	for _, file := range files {
		if err := noStdin("serve", file, "each agent is served from its own file"); err != nil {
			return sv, err
		}
		// A directory is a skills folder, served as one agent.
		openVersion := a.openVersion
		if fi, err := os.Stat(file); err == nil && fi.IsDir() {
			root := file
			openVersion = func(string) (*loader.Agent, error) { return a.openFolders(ctx, []string{root}, ff) }
		}
		ag, err := openVersion(file)
		if err != nil {
			return sv, err
		}
		slug := ag.EndpointSlug()
		if prev, dup := from[slug]; dup {
			ag.Close()
			return sv, ioError(fmt.Errorf("%s and %s both name an agent %q (endpoint /mcp/%s): give one a different title (or `agent:` key) in its frontmatter", prev, file, slug, slug))
		}
		from[slug] = file
		name, skills := ag.Info().Name, ag.SkillCount()
		// The first version is the one opened here to name the endpoint;
		// the server owns it from now on, and opens each new one.
		src := mcp.Opener(func(context.Context) (*loader.Agent, error) { return ag, nil }, nil)
		reopen := func(context.Context) (*loader.Agent, error) { return openVersion(file) }
		if roots := ag.Folders(); len(roots) > 0 {
			src.Changes = so.flags.watch(mcp.WatchFolders(roots, reopen))
		} else {
			src.Changes = so.flags.watch(mcp.WatchFile(file, reopen))
		}
		opts := a.serverOptions(so.flags, src, logger.With("agent", slug), so.mem)
		if so.onAgent != nil {
			opts.OnReload = so.onAgent(slug)
		}
		s, err := mcp.NewServer(ctx, opts)
		if err != nil {
			ag.Close() // never handed to the server
			return sv, ioError(err)
		}
		sv.servers = append(sv.servers, s)
		sv.ep.Agents[slug] = s.HTTPHandler(&mcp.HTTPOptions{MaxBodyBytes: maxBody,
			OnMethod: func(r *http.Request, m string) { httpd.SetMCPMethod(r.Context(), m) },
			OnStream: httpd.StartStream, ReserveAnswer: httpd.ReserveAnswer, Draining: httpd.Draining})
		sv.ready = append(sv.ready, readyAgent{name: name, slug: slug, file: file, skills: skills})
	}
	return sv, nil
}
