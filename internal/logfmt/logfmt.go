package logfmt

import (
	"context"
	"fmt"
	"io"
	"log/slog"
)

// The formats --log-format takes.
const (
	Text = "text"
	JSON = "json"
)

// FlagUsage is the help text of every --log-format flag.
const FlagUsage = "stderr log format: text (key=value lines for people) or json (one object a line, for log collectors)"

// Check says whether format is one --log-format takes, naming the choices
// when it is not.
func Check(format string) error {
	switch format {
	case Text, JSON:
		return nil
	}
	return fmt.Errorf("--log-format %q: use text or json", format)
}

// New is a logger writing to w at level in format (Check it first; any
// other value is taken as text).
func New(w io.Writer, level slog.Leveler, format string) *slog.Logger {
	o := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if format == JSON {
		h = slog.NewJSONHandler(w, o)
	} else {
		h = slog.NewTextHandler(w, o)
	}
	return slog.New(dropEmpty{h})
}

// dropEmpty leaves out attributes whose value is the empty string: the
// loggers' callers log a fixed set of fields (an index's cache path, why
// it was rebuilt), and one that is unset carries nothing to read.
type dropEmpty struct{ h slog.Handler }

func (d dropEmpty) Enabled(ctx context.Context, l slog.Level) bool { return d.h.Enabled(ctx, l) }

func (d dropEmpty) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if !empty(a) {
			out.AddAttrs(a)
		}
		return true
	})
	return d.h.Handle(ctx, out)
}

func (d dropEmpty) WithAttrs(as []slog.Attr) slog.Handler {
	kept := make([]slog.Attr, 0, len(as))
	for _, a := range as {
		if !empty(a) {
			kept = append(kept, a)
		}
	}
	return dropEmpty{d.h.WithAttrs(kept)}
}

func (d dropEmpty) WithGroup(name string) slog.Handler { return dropEmpty{d.h.WithGroup(name)} }

// empty reports an attribute whose value is the empty string (resolved:
// a LogValuer that yields "" is empty too).
func empty(a slog.Attr) bool {
	v := a.Value.Resolve()
	return v.Kind() == slog.KindString && v.String() == ""
}
