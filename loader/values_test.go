package loader

import (
	"maps"
	"strings"
	"testing"
)

func TestIsValueArg(t *testing.T) {
	for s, want := range map[string]bool{
		"a=1": true, "path=": true, "_x9=y=z": true, "A_b=c": true,
		"=1": false, "9a=1": false, "a-b=1": false, "a b=1": false, "plain text": false, "é=1": false,
	} {
		if got := IsValueArg(s); got != want {
			t.Errorf("IsValueArg(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseValues(t *testing.T) {
	got, err := ParseValues([]string{"a=1", "b=x=y", "c="})
	if want := map[string]string{"a": "1", "b": "x=y", "c": ""}; err != nil || !maps.Equal(got, want) {
		t.Fatalf("ParseValues = %v, %v; want %v", got, err, want)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"a=1", "a=2"}, "input a is given twice (a=1 and a=2)"},
		{[]string{"noequals"}, `argument "noequals" is not NAME=VALUE`},
		{[]string{"=v"}, `argument "=v" is not NAME=VALUE`},
	} {
		if _, err := ParseValues(tt.args); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseValues(%q) error %v, want %q", tt.args, err, tt.want)
		}
	}
}
