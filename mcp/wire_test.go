package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/loader"
)

// stdJSON is what encoding/json writes for v with HTML escaping off, as
// appendAnswer's encoder is set up.
func stdJSON(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func checkString(t testing.TB, s string) {
	t.Helper()
	if got, want := string(appendJSONString(nil, s)), stdJSON(t, s); got != want {
		t.Fatalf("appendJSONString(%q) = %s, encoding/json writes %s", s, got, want)
	}
}

// TestAppendJSONStringMatchesEncodingJSON: every byte alone and inside
// text, multi-byte runes, invalid and truncated UTF-8, U+2028/U+2029 and
// random byte strings encode as encoding/json encodes them.
func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for c := 0; c < 256; c++ {
		checkString(t, string([]byte{byte(c)}))
		checkString(t, "a"+string([]byte{byte(c)})+"b")
		// At every position of the eight-byte blocks, and past them.
		for at := 0; at < 19; at++ {
			b := []byte("abcdefghijklmnopqrs")
			b[at] = byte(c)
			checkString(t, string(b))
		}
	}
	for _, s := range []string{
		"", "plain", `q"uo\te`, "<b>&amp;</b>", "é ü 世界 🙂", "\u2028x\u2029", "\xe2\x80", "\xff\xfe",
		"\xed\xa0\x80", "tab\tnl\nret\rbs\bff\f", "\x00\x1f\x7f", "a\u2028", "\xf4\x90\x80\x80",
	} {
		checkString(t, s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", `"`, `\`, "\n", "\x01", "é", "\u2028", "\xff", "\xe2\x80", "🙂", "<"}
	for i := 0; i < 5000; i++ {
		var b []byte
		for n := rng.IntN(40); n > 0; n-- {
			if rng.IntN(4) == 0 {
				b = append(b, byte(rng.IntN(256)))
			} else {
				b = append(b, alphabet[rng.IntN(len(alphabet))]...)
			}
		}
		checkString(t, string(b))
	}
}

// TestPlainASCII8: the eight-byte test agrees with a byte-by-byte one for
// every byte value at every position and for random blocks.
func TestPlainASCII8(t *testing.T) {
	plain := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	check := func(b []byte) {
		t.Helper()
		if got, want := plainASCII8(string(b)), plain(b); got != want {
			t.Fatalf("plainASCII8(%q) = %v, want %v", b, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		for at := 0; at < 8; at++ {
			b := []byte("        ")
			b[at] = byte(c)
			check(b)
			b = []byte("~~~~~~~~")
			b[at] = byte(c)
			check(b)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 8)
	for i := 0; i < 200000; i++ {
		for k := range b {
			if rng.IntN(3) == 0 {
				b[k] = byte(rng.IntN(256))
			} else {
				b[k] = byte(0x20 + rng.IntN(0x60))
			}
		}
		check(b)
	}
}

// TestAppendJSONFloatMatchesEncodingJSON: scores and z values, at and
// around the exponent-form bounds, negative and random bit patterns.
func TestAppendJSONFloatMatchesEncodingJSON(t *testing.T) {
	check := func(f float64) {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return
		}
		if got, want := string(appendJSONFloat(nil, f)), stdJSON(t, f); got != want {
			t.Fatalf("appendJSONFloat(%v) = %s, encoding/json writes %s", f, got, want)
		}
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 3, 12.25, 1e-6, 9.99999e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1e22, -1e-7,
		0.000187662, 123456789, math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0 / 3} {
		check(f)
		check(math.Nextafter(f, math.Inf(1)))
		check(math.Nextafter(f, math.Inf(-1)))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		check(math.Float64frombits(rng.Uint64()))
		check(rng.Float64() * math.Pow(10, float64(rng.IntN(40)-20)))
	}
}

// FuzzAppendJSONString keeps comparing the appender with encoding/json.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "\x00", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkString(t, s) })
}

// TestBodyToolsEncodeAsEncodingJSON: get_skill and resolve_skill escape
// each body once, straight into their one text block, and declare no
// structured content in any revision (docs/protocol.md §4): the answer is
// what encoding/json writes for the same text, for every skill of every
// example agent and of an agent whose bodies hold control bytes, quotes,
// U+2028 and invalid UTF-8.
func TestBodyToolsEncodeAsEncodingJSON(t *testing.T) {
	odd := filepath.Join(t.TempDir(), "odd.3md")
	text := "---\n3md: 1.0\naxis: skill\ntitle: Odd\nagent: odd\n---\n\n@plane z=0 label=\"odd\" kind=identity\nIdentity.\n\n" +
		"@plane z=1 label=\"alpha\" kind=skill triggers=\"alpha\"\nTab\there \"quoted\" back\\slash \x01\x1f line\u2028sep bad \xff\xe2\x80 end [[z=2]]\n\n" +
		"@plane z=2 label=\"beta\" kind=skill triggers=\"beta\"\nBeta <b>&amp; é 🙂 \r\n\n"
	if err := os.WriteFile(odd, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../examples/*.3md")
	files = append(files, "testdata/ada.3md", odd)
	ctx := context.Background()
	for _, file := range files {
		a, err := loader.Open(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := newServer(&Options{Source: Loaded(a)})
		v := s.cur.Load()
		for _, sk := range a.Skills() {
			args := map[string]json.RawMessage{"name": json.RawMessage(stdJSON(t, sk.Name))}
			got, err := getSkillTool.run(s, ctx, v, args)
			if err != nil || got.isError {
				t.Fatalf("%s: get_skill %s: %v %s", file, sk.Name, err, got.text)
			}
			body, err := a.Body(ctx, sk.Name)
			if err != nil {
				t.Fatal(err)
			}
			checkTextAnswer(t, s, getSkillTool, got, body)
			got, err = resolveSkillTool.run(s, ctx, v, args)
			if err != nil || got.isError {
				t.Fatalf("%s: resolve_skill %s: %v %s", file, sk.Name, err, got.text)
			}
			chain, err := a.Resolve(ctx, sk.Name)
			if err != nil {
				t.Fatal(err)
			}
			checkTextAnswer(t, s, resolveSkillTool, got, loader.ChainText(chain))
		}
		a.Close()
	}
}

// checkTextAnswer checks a body tool's outcome as toolResult encodes it,
// in a revision with structured content and in one without: the one text
// block want, escaped as encoding/json escapes it, and nothing else.
func checkTextAnswer(t *testing.T, s *server, tool *toolDef, out *toolOutcome, want string) {
	t.Helper()
	wantEnc := `{"content":[{"type":"text","text":` + stdJSON(t, want) + `}]}`
	for _, structured := range []bool{true, false} {
		res, err := s.toolResult(tool, out, structured)
		if err != nil {
			t.Fatal(err)
		}
		if string(res.enc) != wantEnc {
			t.Errorf("%s (structured %v):\n got %.300s\nwant %.300s", tool.name, structured, res.enc, wantEnc)
		}
	}
}

// TestBodyAnswerEscapes: a body long enough to grow the answer past its
// first estimate (every byte escaped) is still written whole.
func TestBodyAnswerEscapes(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	for _, body := range []string{"", "plain", "quote \" and \\ and \u2028 and \x01", strings.Repeat("\x02<>&", 5000)} {
		checkTextAnswer(t, s, getSkillTool, &toolOutcome{text: body}, body)
	}
}

// BenchmarkAppendJSONString encodes a skill body of an example agent.
func BenchmarkAppendJSONString(b *testing.B) {
	a, err := loader.Open(filepath.Join("..", "examples", "devtools.3md"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	body, err := a.Body(context.Background(), a.Skills()[0].Name)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 2*len(body))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		buf = appendJSONString(buf[:0], body)
	}
}
