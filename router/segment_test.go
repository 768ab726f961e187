package router

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/segment"
)

func testSegmenter() *segmenter {
	return buildSegmenter(Skills([]Skill{
		{Name: "deploy", Triggers: []string{"部署", "发布"}},
		{Name: "logs", Triggers: []string{"查看日志", "日志"}},
		{Name: "ja", Triggers: []string{"デプロイ"}},
		{Name: "ko", Triggers: []string{"배포"}},
		{Name: "latin", Triggers: []string{"log", "deploy"}},
		{Name: "回滚"},
	}))
}

func TestSegmenterSplit(t *testing.T) {
	sg := testSegmenter()
	for _, tt := range []struct {
		in   string
		want []string // nil: left as it was
	}{
		{"请部署结账服务", []string{"请", "部署", "结账服务"}},
		{"帮我查看日志", []string{"帮我", "查看日志"}},   // the longest word first
		{"日志和部署", []string{"日志", "和", "部署"}}, // two words, the text between kept
		{"k8s部署", []string{"k8s", "部署"}},     // other scripts stay words
		{"回滚支付服务", []string{"回滚", "支付服务"}},   // a skill's name is a word too
		{"決済サービスをデプロイして", []string{"決済サービスを", "デプロイ", "して"}},
		{"배포해줘", []string{"배포", "해줘"}},
		{"今天天气怎么样", nil}, // none of the agent's words: whole
		{"catalog", nil}, // Latin words are never cut: "log" is not in it
		{"deploy the app", nil},
	} {
		toks := appendTokens(nil, tt.in)
		got, cut := sg.split(nil, toks)
		want := tt.want
		if want == nil {
			want = toks
		}
		if cut != (tt.want != nil) || !slices.Equal(got, want) {
			t.Errorf("split(%q) = %q, %v; want %q, %v", tt.in, got, cut, want, tt.want != nil)
		}
	}
}

// TestRouteUnspaced: ranked mode finds a Chinese, Japanese or Korean
// trigger inside a request written without spaces, and leaves requests
// that hold none unmatched; spec mode stays the reference's routing, where
// a token must equal the trigger's.
func TestRouteUnspaced(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "deploy", Z: 1, Triggers: []string{"部署", "发布", "デプロイ", "배포"}, Description: "部署一个服务到生产环境。"},
		{Name: "logs", Z: 2, Triggers: []string{"查看日志", "日志", "ログ", "로그"}, Description: "查看服务的日志。"},
		{Name: "rollback", Z: 3, Triggers: []string{"回滚"}},
	}, nil)
	for _, tt := range []struct{ text, want string }{
		{"请部署结账服务", "deploy"},
		{"帮我看一下支付服务的日志", "logs"},
		{"回滚支付服务", "rollback"},
		{"決済サービスをデプロイして", "deploy"},
		{"결제 서비스를 배포해줘", "deploy"},
		{"결제 서비스 로그 좀 보여줘", "logs"},
		{"今天天气怎么样", ""},
		{"오늘 날씨 어때", ""},
	} {
		got := route(t, r, tt.text, &Query{Mode: Ranked})
		if firstName(got) != tt.want {
			t.Errorf("ranked %q: %+v, want %q first", tt.text, got, tt.want)
		}
		if spec := route(t, r, tt.text, &Query{Mode: Spec}); len(spec) != 0 && !strings.Contains(tt.text, " ") {
			t.Errorf("spec %q: %+v; a token must equal a trigger's there", tt.text, spec)
		}
	}
}

// FuzzSegment: cutting never loses or invents text: the words split
// returns spell the tokens it was given, in order.
func FuzzSegment(f *testing.F) {
	for _, s := range []string{"请部署结账服务", "k8s部署now", "決済サービスをデプロイして", "배포해줘", "日志日志", "ー部署ー", "plain text"} {
		f.Add(s)
	}
	sg := testSegmenter()
	f.Fuzz(func(t *testing.T, s string) {
		toks := appendTokens(nil, s)
		got, cut := sg.split(nil, toks)
		if strings.Join(got, "") != strings.Join(toks, "") {
			t.Fatalf("split(%q) = %q: not the tokens' text", toks, got)
		}
		for _, w := range got {
			if w == "" {
				t.Fatalf("split(%q) = %q: an empty word", toks, got)
			}
		}
		if !cut && !slices.Equal(got, toks) {
			t.Fatalf("split(%q) = %q, reporting no cut", toks, got)
		}
	})
}

// TestSegmenterBounds: a run longer than segment.MaxRun is kept whole, and
// cutting stops adding words once the request holds MaxRequestWords: a
// pasted document costs what a request does.
func TestSegmenterBounds(t *testing.T) {
	sg := testSegmenter()
	long := strings.Repeat("部署", segment.MaxRun/len("部署")+1)
	if got, cut := sg.split(nil, []string{long}); cut || len(got) != 1 {
		t.Errorf("a %d-byte run: %d words, cut %v; want it whole", len(long), len(got), cut)
	}
	toks := make([]string, MaxRequestWords)
	for i := range toks {
		toks[i] = "部署日志" // two words each
	}
	got, _ := sg.split(nil, toks)
	if len(got) > MaxRequestWords+2 {
		t.Errorf("%d tokens of two words each became %d words; want at most about %d", len(toks), len(got), MaxRequestWords)
	}
	if strings.Join(got, "") != strings.Join(toks, "") {
		t.Error("the words do not spell the tokens")
	}
}

// TestRouteUnspacedRelaxed: a Chinese, Japanese or Korean request that
// hits no trigger finds the skill whose description it shares words with,
// as an English one would: the index reads those scripts as overlapping
// pairs of runes, so "文档" and "翻译" inside an unspaced request meet
// the same words inside an unspaced description, and "예보" meets "예보를".
// Small talk that shares no such words stays unmatched.
func TestRouteUnspacedRelaxed(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "translate", Z: 1, Triggers: []string{"translate"}, Description: "把文档翻译成英文或中文，保留格式。"},
		{Name: "invoice", Z: 2, Triggers: []string{"invoice"}, Description: "为客户生成发票并发送邮件。"},
		{Name: "backup", Z: 3, Triggers: []string{"backup"}, Description: "データベースを毎晩バックアップする。"},
		{Name: "weather", Z: 4, Triggers: []string{"forecast"}, Description: "날씨 예보를 조회합니다."},
	}, nil)
	for _, tt := range []struct{ text, want string }{
		{"帮我把这份文档翻译成英文", "translate"},
		{"给客户生成一张发票", "invoice"},
		{"データベースのバックアップを取って", "backup"},
		{"내일 날씨 예보를 조회해줘", "weather"},
		{"今天吃什么", ""},
		{"我们需要一个新的服务", ""},
		{"오늘 기분이 좋아요", ""},
		{"这份文档写得怎么样", ""},
	} {
		got := found(t, r, tt.text, &Query{Mode: Ranked})
		if len(got) > 0 && got[0].Tier != TierRelaxed {
			t.Errorf("%q: tier %s, want relaxed (no trigger is in it)", tt.text, got[0].Tier)
		}
		if firstName(got) != tt.want {
			t.Errorf("ranked %q: %+v, want %q first", tt.text, got, tt.want)
		}
	}
	// The hits show the request's own runs, not the pairs the index
	// matched them by.
	got := route(t, r, "帮我把这份文档翻译成英文", &Query{Mode: Ranked})
	if len(got) == 0 || !slices.Equal(got[0].Hits, []string{"文档翻译成英文"}) {
		t.Errorf("hits %+v, want the run 文档翻译成英文 whole", got)
	}
}

// TestJoinPairs: consecutive pairs join only where the request has the
// joined run; other hits are kept as they are.
func TestJoinPairs(t *testing.T) {
	for _, tt := range []struct {
		hits []string
		text string
		want []string
	}{
		{[]string{"文档", "档翻", "翻译"}, "把文档翻译好", []string{"文档翻译"}},
		{[]string{"文档", "翻译"}, "文档要翻译", []string{"文档", "翻译"}},
		{[]string{"文档", "档案"}, "文档和档案", []string{"文档", "档案"}},
		{[]string{"deploy", "logs"}, "deploy logs", []string{"deploy", "logs"}},
		{[]string{"날씨", "예보", "보를"}, "날씨 예보를", []string{"날씨", "예보를"}},
		{nil, "x", nil},
		{[]string{"文档", "档翻"}, "文档翻" + strings.Repeat(".", maxJoinText), []string{"文档", "档翻"}},
	} {
		if got := joinPairs(slices.Clone(tt.hits), tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("joinPairs(%q, %q) = %q, want %q", tt.hits, tt.text, got, tt.want)
		}
	}
}

// firstName is the name of the first match, "" when there is none.
func firstName(got []Match) string {
	if len(got) == 0 {
		return ""
	}
	return got[0].Name
}
