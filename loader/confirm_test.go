package loader

import "testing"

func TestNeedsConfirmation(t *testing.T) {
	tests := []struct {
		cost    string
		relaxed bool
		want    bool
	}{
		{"", false, false},
		{"high", false, true},
		{"", true, true},
		{"low", true, true},
	}
	for _, tt := range tests {
		if got := NeedsConfirmation(tt.cost, tt.relaxed); got != tt.want {
			t.Errorf("NeedsConfirmation(%q, %v) = %v, want %v", tt.cost, tt.relaxed, got, tt.want)
		}
	}
}
