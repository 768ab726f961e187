package agentfile

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestBounds: every field of Limits is one Bound, each pointing at its own
// field, with the default Effective gives it; a broken bound's LimitError
// names the Bound's flag.
func TestBounds(t *testing.T) {
	var l Limits
	bounds := l.Bounds()
	if n := reflect.TypeOf(l).NumField(); len(bounds) != n {
		t.Fatalf("%d bounds for the %d fields of Limits", len(bounds), n)
	}
	eff := l.Effective()
	byName := map[string]Bound{}
	for i, b := range bounds {
		if (b.Int == nil) == (b.Int64 == nil) {
			t.Fatalf("%s: exactly one of Int and Int64 must be set", b.Name)
		}
		if b.Default <= 0 || b.Default > b.Ceiling || b.Usage == "" {
			t.Errorf("%s: default %d, ceiling %d, usage %q", b.Name, b.Default, b.Ceiling, b.Usage)
		}
		if got := eff.Bounds()[i].Value(); got != b.Default {
			t.Errorf("%s: Default %d, Effective gives %d", b.Name, b.Default, got)
		}
		if b.Int != nil {
			*b.Int = i + 1
		} else {
			*b.Int64 = int64(i + 1)
		}
		byName[b.Name] = b
	}
	for i, b := range bounds {
		if b.Value() != int64(i+1) {
			t.Errorf("%s shares its field with another bound", b.Name)
		}
	}
	if l.MaxPlanes != int(byName["max-planes"].Value()) || l.MaxBytes != byName["max-bytes"].Value() {
		t.Errorf("bounds do not point at their fields: %+v", l)
	}
	_, err := Parse(strings.NewReader("---\n3md: 1\n---\n@plane z=0\na\n\n@plane z=1\nb\n"), &Options{Limits: Limits{MaxPlanes: 1}})
	var le *LimitError
	if !errors.As(err, &le) || le.Flag != "--"+byName["max-planes"].Name {
		t.Errorf("planes past the bound: %v, want a LimitError naming --max-planes", err)
	}
}
