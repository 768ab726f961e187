package agentfile

import (
	"math"
	"reflect"
	"testing"
)

// TestParseNumber pins the 3md number grammar (docs/format.md §4): optional sign,
// digits with an optional fraction or a fraction alone, optional exponent;
// finite only.
func TestParseNumber(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true}, {"-3", -3, true}, {"+2", 2, true}, {"1.5", 1.5, true}, {".5", 0.5, true},
		{"-.5", -0.5, true}, {"2e3", 2000, true}, {"2E-3", 0.002, true}, {"1.5e+2", 150, true},
		{"007", 7, true}, {"1e-400", 0, true}, {"1.7976931348623157e308", math.MaxFloat64, true},
		{"", 0, false}, {"-", 0, false}, {".", 0, false}, {"e5", 0, false}, {"1e", 0, false},
		{"1e+", 0, false}, {"0x10", 0, false}, {"inf", 0, false}, {"Infinity", 0, false},
		{"NaN", 0, false}, {"1,000", 0, false}, {"1_000", 0, false}, {" 1", 0, false},
		{"1 ", 0, false}, {"1e400", 0, false}, {"-1e400", 0, false}, {"--1", 0, false}, {"1.2.3", 0, false},
	} {
		got, ok := ParseNumber(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseInputs(t *testing.T) {
	for in, want := range map[string][]Input{
		"":                    nil,
		"q":                   {{Name: "q", Type: "string"}},
		"q, n:number":         {{Name: "q", Type: "string"}, {Name: "n", Type: "number"}},
		" n : Number ? ,, b?": {{Name: "n", Type: "number", Optional: true}, {Name: "b", Type: "string", Optional: true}},
		"o:object?,a:ARRAY":   {{Name: "o", Type: "object", Optional: true}, {Name: "a", Type: "array"}},
		"x:int":               {{Name: "x", Type: "int"}},
	} {
		if got := ParseInputs(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseInputs(%q) = %+v, want %+v", in, got, want)
		}
	}
	for _, typ := range InputTypes {
		if !ValidInputType(typ) {
			t.Errorf("%s is not valid", typ)
		}
	}
	if ValidInputType("int") || ValidInputType("String") {
		t.Error("only the lowercased canonical types are valid")
	}
}

func TestSplitListAndPlaceholders(t *testing.T) {
	if got := SplitList(" a, ,b ,,c "); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("SplitList = %q", got)
	}
	if got := SplitList(" , "); got != nil {
		t.Errorf("SplitList of empties = %q", got)
	}
	got := Placeholders("git log -n {n} {path} {n} {1bad} {_ok} {a-b} {{x}}")
	if want := []string{"n", "path", "_ok", "x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Placeholders = %q, want %q", got, want)
	}
}

func TestLinkIntegerTarget(t *testing.T) {
	for target, want := range map[string]bool{
		"1": true, "007": true, "10": true, "": false, "+1": false, "-1": false, "1.0": false, "1e2": false,
	} {
		if got := (Link{Target: target}).IntegerTarget(); got != want {
			t.Errorf("IntegerTarget(%q) = %v, want %v", target, got, want)
		}
	}
}

func TestAttrs(t *testing.T) {
	cat := mustParse(t, "---\n3md: 1.0\n---\n@plane z=1 B=2 a='x y' c=\"q\\\"r\" a=last label=L\n")
	attrs := cat.Planes[0].Attributes
	if v, ok := attrs.Get("a"); !ok || v != "last" {
		t.Errorf("Get(a) = %q, %v", v, ok)
	}
	if _, ok := attrs.Get("label"); ok {
		t.Error("label is lifted out of the attributes")
	}
	if attrs.Value("missing") != "" || attrs.Value("b") != "2" {
		t.Errorf("Value: %+v", attrs)
	}
	if m := attrs.Map(); !reflect.DeepEqual(m, map[string]string{"a": "last", "b": "2", "c": `q"r`}) {
		t.Errorf("Map = %q", m)
	}
	b, err := attrs.MarshalJSON()
	if err != nil || string(b) != `{"a":"last","b":"2","c":"q\"r"}` {
		t.Errorf("MarshalJSON = %s, %v", b, err)
	}
	if cat.PlaneIndex(1) != 0 || cat.PlaneIndex(2) != -1 {
		t.Error("PlaneIndex")
	}
}
