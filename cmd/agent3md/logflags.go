package main

import (
	"io"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/agent3md/agent3md/internal/logfmt"
)

// addLogFormat adds --log-format to a long-running command (mcp, serve,
// sync --watch): text by default, json for log collectors.
func addLogFormat(f *pflag.FlagSet, format *string) {
	f.StringVar(format, "log-format", logfmt.Text, logfmt.FlagUsage)
}

// newLogger is the stderr logger of mcp, serve and sync --watch
// (internal/logfmt): level and format as the flags say, no empty fields.
func newLogger(w io.Writer, level slog.Level, format string) (*slog.Logger, error) {
	if err := logfmt.Check(format); err != nil {
		return nil, ioError(err)
	}
	return logfmt.New(w, level, format), nil
}
