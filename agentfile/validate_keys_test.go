package agentfile

import "testing"

// TestNearKey pins which unknown keys read as slips of a known one.
// Frontmatter keys are held to one edit with the first letter kept: the
// "not slips" below are metadata keys of real 3md documents
// (CorvidLabs/3md's examples) that two edits would have flagged.
func TestNearKey(t *testing.T) {
	front := []struct {
		key, want string
	}{
		{"modle", "model"},      // a swap is one slip
		{"tilte", "title"},      // likewise
		{"trigger", "triggers"}, // the singular
		{"tool", "tools"},
		{"persna", "persona"},
		{"Title", ""}, // a case change is no slip of the key itself: same letters (keys are matched as written)
		// not slips: real documents' own metadata
		{"site", ""}, {"file", ""}, {"event", ""}, {"session", ""}, {"roots", ""}, {"host", ""}, {"author", ""},
	}
	for _, tt := range front {
		got, ok := nearFrontKey(tt.key)
		if tt.key == "Title" {
			// "Title" lowers to a known key: reported, since agent3md
			// reads keys as written.
			if !ok || got != "title" {
				t.Errorf("nearFrontKey(%q) = %q, %v; want title", tt.key, got, ok)
			}
			continue
		}
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("nearFrontKey(%q) = %q, %v; want %q", tt.key, got, ok, tt.want)
		}
	}
	plane := []struct {
		key, want string
	}{
		{"lable", "label"}, {"triger", "triggers"}, {"trigers", "triggers"}, {"input", "inputs"}, {"tools", "tool"},
		{"costs", "cost"}, {"host", ""}, {"date", ""}, {"hidden", ""}, {"color", ""},
	}
	for _, tt := range plane {
		got, ok := nearKey(tt.key, planeKeys)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("nearKey(%q) = %q, %v; want %q", tt.key, got, ok, tt.want)
		}
	}
}
