package agentfile

import "testing"

func TestArrayIndex(t *testing.T) {
	for name, want := range map[string]bool{
		"0": true, "12": true, "4294967294": true,
		"": false, "01": false, "4294967295": false, "-1": false, "1.0": false, "1e3": false, " 1": false, "99999999999": false,
	} {
		if _, got := arrayIndex(name); got != want {
			t.Errorf("arrayIndex(%q) = %v, want %v", name, got, want)
		}
	}
}
