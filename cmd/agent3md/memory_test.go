package main

import "testing"

func TestParseMemoryLimit(t *testing.T) {
	tests := []struct {
		in   string
		want memoryLimit
		ok   bool
	}{
		{"auto", memoryLimit{auto: true}, true},
		{"AUTO", memoryLimit{auto: true}, true},
		{"off", memoryLimit{}, true},
		{"512MiB", memoryLimit{bytes: 512 << 20}, true},
		{"2GiB", memoryLimit{bytes: 2 << 30}, true},
		{"1048576", memoryLimit{bytes: 1 << 20}, true},
		{"64 KiB", memoryLimit{bytes: 64 << 10}, true},
		{"100B", memoryLimit{bytes: 100}, true},
		{"", memoryLimit{}, false},
		{"0", memoryLimit{}, false},
		{"-5MiB", memoryLimit{}, false},
		{"12MB", memoryLimit{}, false}, // GOMEMLIMIT has no MB
		{"lots", memoryLimit{}, false},
		{"99999999999TiB", memoryLimit{}, false},
	}
	for _, tt := range tests {
		got, err := parseMemoryLimit(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("parseMemoryLimit(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
