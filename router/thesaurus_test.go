package router

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"
)

// String is the member as written, for test failures.
func (m synMember) String() string { return strings.Join(m.words, " ") }

// TestThesaurusParses holds the embedded thesaurus to its format: it
// parses, every group has distinct members (by stem), no group repeats
// another or is contained in one (it would only add weight to words
// another line already joins; a one-way group's targets count apart,
// since they bring nothing), and it is large enough to be the broad
// domain list it claims to be.
func TestThesaurusParses(t *testing.T) {
	th, err := parseThesaurus(thesaurusText)
	if err != nil {
		t.Fatal(err)
	}
	if len(th.groups) < 150 {
		t.Errorf("%d groups, want the broad list of at least 150", len(th.groups))
	}
	keys := make([][]string, len(th.groups))
	for i, g := range th.groups {
		for _, m := range g {
			k := strings.Join(m.stems, " ")
			if m.target {
				// A one-way group's targets are not synonyms of each
				// other: a two-way group among them is no repeat.
				k = ">" + k
			}
			keys[i] = append(keys[i], k)
		}
		slices.Sort(keys[i])
	}
	for i := range keys {
		for j := range keys {
			if i != j && subset(keys[i], keys[j]) && (len(keys[i]) < len(keys[j]) || i < j) {
				t.Errorf("group %q is contained in group %q: merge them", th.groups[i], th.groups[j])
			}
		}
	}
	if got := thesaurusOnce(); len(got.groups) != len(th.groups) {
		t.Errorf("the router's thesaurus has %d groups, the file %d", len(got.groups), len(th.groups))
	}
}

// subset reports whether sorted a is within sorted b.
func subset(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

func TestParseThesaurusErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"deploy", "line 1: a group needs at least two members"},
		{"# c\n\ndeploy, Ship", `line 3: member 2 "Ship": only lower-case`},
		{"deploy, , ship", "line 1: member 2 is empty"},
		{"deploy,  roll  out", `words are separated by one space`},
		{"test, tests", `member 2 "tests" has the stems of "test"`},
		{"a, b c d e f g", "6 words, over the limit of 5"},
		{"ship, déploy!", "only lower-case letters"},
		{strings.Repeat("a", 2000), "over the limit of 1024"},
		{"pytest: test: unit test", "more than one colon"},
		{"pytest, jest:", "members before and after its colon"},
		{": test", "members before and after its colon"},
		{"pytest: pytest", `member 2 "pytest" has the stems of "pytest"`},
		{"券, 优惠券", `member 1 "券": a member in an unspaced script (Chinese) is two or more`},
		{"电话, 手机 号", `member 2 "手机 号": a member in an unspaced script`},
		{"qq号, 电话", `member 1 "qq号": a member in an unspaced script`},
		{"退款, 退款", `member 2 "退款" has the stems of "退款"`},
	} {
		_, err := parseThesaurus(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseThesaurus(%.40q) = %v, want an error with %q", c.text, err, c.want)
		}
	}
	th, err := parseThesaurus("# comment\n\n  deploy, ship, roll out  \n")
	if err != nil {
		t.Fatal(err)
	}
	if len(th.groups) != 1 || len(th.single[stem("deploy")]) != 1 || len(th.multi["roll"]) != 1 {
		t.Errorf("parsed %+v", th)
	}
	// A one-way group: the names are looked up, the words after the
	// colon are members to bring but never keys.
	th, err = parseThesaurus("pytest, go test: test, unit test\n")
	if err != nil {
		t.Fatal(err)
	}
	g := th.groups[0]
	if len(g) != 4 || g[0].target || g[1].target || !g[2].target || !g[3].target ||
		len(th.single[stem("pytest")]) != 1 || len(th.multi["go"]) != 1 ||
		len(th.single[stem("test")]) != 0 || len(th.multi["unit"]) != 0 {
		t.Errorf("parsed one-way group %+v", th)
	}
}

// FuzzParseThesaurus: the thesaurus parser either refuses a text with an
// error naming its line, or returns groups of at least two members, each
// member with as many stems as words, and keys that point at real
// groups; it never panics, and a request expanded with what it returns
// never does either.
func FuzzParseThesaurus(f *testing.F) {
	f.Add("deploy, ship, roll out\n")
	f.Add("pytest, go test: test, unit test\n# c\n\nchart, plot")
	f.Add("a: b: c")
	f.Add("x,, y")
	f.Add("电话, 手机号, 手机号码, 联系电话\n我的手机号码少写了一位")
	f.Add("顺丰, ems: 快递, 物流\n券, 优惠券")
	f.Fuzz(func(t *testing.T, text string) {
		th, err := parseThesaurus(text)
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, g := range th.groups {
			if len(g) < 2 {
				t.Fatalf("group %+v has fewer than two members", g)
			}
			for _, m := range g {
				if len(m.words) == 0 || len(m.words) != len(m.stems) ||
					segment.HasUnspaced(m.stems[0]) && (m.stems[0] != m.words[0] || utf8.RuneCountInString(m.stems[0]) < 2) {
					t.Fatalf("member %+v", m)
				}
			}
		}
		for _, gs := range th.single {
			for _, g := range gs {
				if int(g) >= len(th.groups) {
					t.Fatalf("key points at group %d of %d", g, len(th.groups))
				}
			}
		}
		toks := appendTokens(nil, text)
		holdThesaurus(th, func(string) bool { return true }).expand(toks, appendStems(nil, toks))
	})
}
