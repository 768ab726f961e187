package hanzi

import (
	"testing"
	"unicode/utf8"
)

func TestConvert(t *testing.T) {
	for _, c := range []struct{ in, simp, trad string }{
		{"請問我的訂單出貨了嗎？", "请问我的订单出货了吗？", "請問我的訂單出貨了嗎？"},
		{"我的订单发货了吗", "我的订单发货了吗", "我的訂單發貨了嗎"},
		{"deploy the api", "deploy the api", "deploy the api"},
		{"k8s 部署 v2", "k8s 部署 v2", "k8s 部署 v2"},
		{"", "", ""},
		{"日本語のテキスト", "日本语のテキスト", "日本語のテキスト"},
	} {
		if got := ToSimplified(c.in); got != c.simp {
			t.Errorf("ToSimplified(%q) = %q, want %q", c.in, got, c.simp)
		}
		if got := ToTraditional(c.in); got != c.trad {
			t.Errorf("ToTraditional(%q) = %q, want %q", c.in, got, c.trad)
		}
	}
}

func TestScript(t *testing.T) {
	for _, c := range []struct {
		in         string
		trad, simp int
	}{
		{"請問我的訂單出貨了嗎", 6, 0},
		{"请问我的订单出货了吗", 0, 6},
		{"我的", 0, 0},
		{"plain English", 0, 0},
	} {
		if tr, si := Script(c.in); tr != c.trad || si != c.simp {
			t.Errorf("Script(%q) = %d traditional, %d simplified; want %d, %d", c.in, tr, si, c.trad, c.simp)
		}
	}
}

// TestTables: every line maps one character to another, the tables load
// whole, and converting never changes a string's length in characters.
func TestTables(t *testing.T) {
	load()
	if len(toSimp) < 4000 || len(toTrad) < 3800 {
		t.Fatalf("tables hold %d and %d characters, want the whole of ts.txt and st.txt", len(toSimp), len(toTrad))
	}
	for from, to := range toSimp {
		if from == to || !utf8.ValidRune(to) {
			t.Fatalf("ts.txt maps %q to %q", from, to)
		}
	}
	s := "這個請求裡有繁體字也有简体字"
	if n := utf8.RuneCountInString(ToSimplified(s)); n != utf8.RuneCountInString(s) {
		t.Errorf("conversion changed the length: %d characters, want %d", n, utf8.RuneCountInString(s))
	}
}

func FuzzConvert(f *testing.F) {
	f.Add("請問我的訂單出貨了嗎")
	f.Add("我的订单发货了吗 k8s")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{ToSimplified(s), ToTraditional(s)} {
			if utf8.RuneCountInString(out) != utf8.RuneCountInString(s) {
				t.Fatalf("%q became %q", s, out)
			}
			if utf8.ValidString(s) && !utf8.ValidString(out) {
				t.Fatalf("%q became invalid UTF-8 %q", s, out)
			}
		}
	})
}
