package segment

import (
	"slices"
	"strings"
	"testing"
)

func testSegmenter() *Segmenter {
	sg := &Segmenter{}
	for _, w := range []string{"部署", "日志", "查看日志", "デプロイ", "배포"} {
		sg.Add(w)
	}
	sg.Sort()
	return sg
}

func TestSplit(t *testing.T) {
	sg := testSegmenter()
	for _, tt := range []struct {
		toks []string
		want []string // nil: as given, and no cut reported
	}{
		{[]string{"请部署结账服务"}, []string{"请", "部署", "结账服务"}},
		{[]string{"帮我查看日志"}, []string{"帮我", "查看日志"}}, // the longest word first
		{[]string{"k8s部署", "now"}, []string{"k8s", "部署", "now"}},
		{[]string{"決済をデプロイして"}, []string{"決済を", "デプロイ", "して"}},
		{[]string{"배포해줘"}, []string{"배포", "해줘"}},
		{[]string{"今天天气怎么样"}, nil}, // none of its words: whole
		{[]string{"deploy", "the", "app"}, nil},
	} {
		got, cut := sg.Split(nil, tt.toks, 100)
		want := tt.want
		if want == nil {
			want = tt.toks
		}
		if cut != (tt.want != nil) || !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", tt.toks, got, cut, want, tt.want != nil)
		}
	}
	if got, cut := (&Segmenter{}).Split(nil, []string{"部署日志"}, 100); cut || len(got) != 1 {
		t.Errorf("an empty Segmenter cut %q into %q", "部署日志", got)
	}
}

// TestSplitBounds: a token over MaxRun stays whole, and once the words so
// far and the tokens left pass maxWords the rest are appended as they are.
func TestSplitBounds(t *testing.T) {
	sg := testSegmenter()
	long := strings.Repeat("部署", MaxRun/len("部署")+1)
	if got, cut := sg.Split(nil, []string{long}, 100); cut || len(got) != 1 {
		t.Errorf("a %d-byte token: %d words, cut %v; want it whole", len(long), len(got), cut)
	}
	got, _ := sg.Split(nil, []string{"部署日志", "部署日志", "部署日志"}, 4)
	if want := []string{"部署", "日志", "部署", "日志", "部署日志"}; !slices.Equal(got, want) {
		t.Errorf("Split at most 4 words = %q, want %q", got, want)
	}
}

func TestSpaced(t *testing.T) {
	sg := testSegmenter()
	for in, want := range map[string]string{
		"退款部署原路":   "退款 部署 原路",
		"查看日志吧":    " 查看日志 吧",
		"plain 文本": "plain 文本",
	} {
		if got := string(sg.Spaced(nil, in)); got != want {
			t.Errorf("Spaced(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScripts(t *testing.T) {
	if got := slices.Collect(ScriptRuns("k8s部署now")); !slices.Equal(got, []string{"k8s", "部署", "now"}) {
		t.Errorf("ScriptRuns = %q", got)
	}
	for s, want := range map[string][2]bool{ // HasUnspaced, AllUnspaced
		"":            {false, false},
		"plain ascii": {false, false},
		"naïve":       {false, false},
		"部署":          {true, true},
		"ー":           {true, true},
		"k8s部署":       {true, false},
		"배포":          {true, true},
	} {
		if got := [2]bool{HasUnspaced(s), AllUnspaced(s)}; got != want {
			t.Errorf("%q: HasUnspaced, AllUnspaced = %v, want %v", s, got, want)
		}
	}
}
