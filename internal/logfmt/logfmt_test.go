package logfmt

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		format string
		check  func(t *testing.T, out string)
	}{
		{Text, func(t *testing.T, out string) {
			if !strings.Contains(out, `msg="routing index ready" index=memory skills=2`) || strings.Contains(out, "path=") || strings.Contains(out, "reason=") || strings.Contains(out, "agent=") {
				t.Errorf("text line %q", out)
			}
			if !strings.Contains(out, "time=") {
				t.Errorf("text line has no time: %q", out)
			}
		}},
		{JSON, func(t *testing.T, out string) {
			var m map[string]any
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("json line %q: %v", out, err)
			}
			if m["msg"] != "routing index ready" || m["index"] != "memory" || m["skills"] != 2.0 || m["time"] == nil {
				t.Errorf("json line %v", m)
			}
			for _, k := range []string{"path", "reason", "agent"} {
				if _, ok := m[k]; ok {
					t.Errorf("json line has the empty %s: %v", k, m)
				}
			}
		}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var b bytes.Buffer
			l := New(&b, slog.LevelInfo, tc.format).With("agent", "")
			l.Info("routing index ready", "index", "memory", "skills", 2, "path", "", "reason", "")
			l.Debug("not at info")
			tc.check(t, strings.TrimSpace(b.String()))
		})
	}
}

func TestCheck(t *testing.T) {
	for _, f := range []string{Text, JSON} {
		if err := Check(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := Check("logfmt"); err == nil || !strings.Contains(err.Error(), "text or json") {
		t.Errorf("logfmt: %v", err)
	}
}
