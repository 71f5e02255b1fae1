package cli

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30d", 30 * day, true},
		{"12w", 12 * 7 * day, true},
		{"36h", 36 * time.Hour, true},
		{"1.5d", 36 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"0d", 0, true},
		{"", 0, false},
		{"d", 0, false},
		{"-3d", 0, false},
		{"30x", 0, false},
		{"1e300w", 0, false},
		{"-1h", 0, false},
	}
	for _, tt := range tests {
		got, err := parseAge(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v", tt.in, got, err)
		}
	}
}
