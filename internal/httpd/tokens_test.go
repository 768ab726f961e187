package httpd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTokens(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    []string
		wantErr error
		errHas  string
	}{
		{name: "one", text: tokA, want: []string{tokA}},
		{name: "comments blanks crlf", text: "# a comment\r\n\r\n" + tokA + "\r\n  # indented comment\n\t" + tokB + " \n", want: []string{tokA, tokB}},
		{name: "empty", text: "", wantErr: errNoTokens, errHas: "f: no tokens"},
		{name: "only comments", text: "# nothing\n\n", wantErr: errNoTokens},
		{name: "short", text: "# x\nshort-token\n", wantErr: errTokenTooShort, errHas: "f:2: token too short: 11 bytes (use at least 16"},
		{name: "exactly min", text: strings.Repeat("a", minTokenBytes), want: []string{strings.Repeat("a", minTokenBytes)}},
		{name: "one under min", text: strings.Repeat("a", minTokenBytes-1), wantErr: errTokenTooShort},
		{name: "exactly max", text: strings.Repeat("a", maxTokenBytes), want: []string{strings.Repeat("a", maxTokenBytes)}},
		{name: "one over max", text: strings.Repeat("a", maxTokenBytes+1), wantErr: errTokenTooLong},
		{name: "space inside", text: "abcdefgh ijklmnopq", wantErr: errTokenChars, errHas: "f:1: token has a character outside A-Z a-z 0-9 - . _ ~ + / = (byte 9)"},
		{name: "non-ascii", text: "abcdefghijklmnopé", wantErr: errTokenChars},
		{name: "base64 chars", text: "AZaz09-._~+/abcd==", want: []string{"AZaz09-._~+/abcd=="}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTokens("f", []byte(tt.text))
			if tt.wantErr != nil {
				var te *TokenError
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &te) {
					t.Fatalf("err %v, want a *TokenError wrapping %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("err %q lacks %q", err, tt.errHas)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// The token never shows in an error about it.
func TestTokenErrorsHideTheToken(t *testing.T) {
	secret := "sekrit sekrit sekrit"
	_, err := parseTokens("f", []byte(secret))
	if err == nil || strings.Contains(err.Error(), "sekrit") {
		t.Fatalf("err %v", err)
	}
	_, err = New(&Options{Tokens: []string{"tiny"}}, oneAgent())
	if !errors.Is(err, errTokenTooShort) || strings.Contains(err.Error(), "tiny") {
		t.Fatalf("err %v", err)
	}
}

func TestTokenFileErrors(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte(strings.Repeat("#\n", DefaultMaxCredentialBytes/2+1)), 0o600)
	for _, tt := range []struct {
		name, file string
		want       error
	}{
		{"missing", filepath.Join(dir, "nope"), os.ErrNotExist},
		{"too big", big, ErrCredentialTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(&Options{TokenFile: tt.file}, oneAgent())
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.file) {
				t.Fatalf("err %v, want %v naming the file", err, tt.want)
			}
		})
	}
}

func TestTokenReload(t *testing.T) {
	file := writeFile(t, "tokens", tokA+"\n")
	r := start(t, Options{TokenFile: file}, oneAgent())
	auth := func(tok string) req {
		return req{path: "/mcp", body: postBody, headers: map[string]string{"Authorization": "Bearer " + tok}}
	}
	runCases(t, r, []statusCase{
		{name: "A before", req: auth(tokA), status: 200},
		{name: "B before", req: auth(tokB), status: 401},
	})

	// Rotation: B added, then A removed.
	os.WriteFile(file, []byte(tokA+"\n"+tokB+"\n"), 0o600)
	if err := r.srv.Reload(); err != nil {
		t.Fatal(err)
	}
	runCases(t, r, []statusCase{
		{name: "A during", req: auth(tokA), status: 200},
		{name: "B during", req: auth(tokB), status: 200},
	})
	os.WriteFile(file, []byte(tokB+"\n"), 0o600)
	if err := r.srv.Reload(); err != nil {
		t.Fatal(err)
	}
	runCases(t, r, []statusCase{
		{name: "A after", req: auth(tokA), status: 401},
		{name: "B after", req: auth(tokB), status: 200},
	})

	// A bad file, or an emptied one, keeps the tokens in use: a reload
	// never turns authentication off.
	for name, text := range map[string]string{"bad": "short\n", "empty": "# all gone\n"} {
		os.WriteFile(file, []byte(text), 0o600)
		if err := r.srv.Reload(); err == nil {
			t.Fatalf("%s: Reload gave no error", name)
		}
		runCases(t, r, []statusCase{
			{name: name + ": B kept", req: auth(tokB), status: 200},
			{name: name + ": none", req: req{path: "/mcp", body: postBody}, status: 401},
		})
	}
}

// A non-loopback address needs a token, or Insecure.
func TestBindRefusal(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		refused bool
	}{
		{name: "all interfaces, no token", opts: Options{Addr: "0.0.0.0:0"}, refused: true},
		{name: "no host, no token", opts: Options{Addr: ":0"}, refused: true},
		{name: "ipv6 any, no token", opts: Options{Addr: "[::]:0"}, refused: true},
		{name: "all interfaces, token", opts: Options{Addr: "0.0.0.0:0", Tokens: []string{tokA}}},
		{name: "all interfaces, insecure", opts: Options{Addr: "0.0.0.0:0", Insecure: true}},
		{name: "loopback, no token", opts: Options{Addr: "127.0.0.1:0"}},
		{name: "localhost name, no token", opts: Options{Addr: "localhost:0"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			buf := &syncBuffer{}
			tt.opts.Logger = newTestLogger(buf)
			s, err := New(&tt.opts, oneAgent())
			if err != nil {
				t.Fatal(err)
			}
			err = s.Listen()
			if s.ln != nil {
				s.ln.Close()
			}
			if !tt.refused {
				if err != nil {
					t.Fatalf("Listen: %v", err)
				}
				return
			}
			var be *BindError
			if !errors.As(err, &be) || !errors.Is(err, ErrNoToken) {
				t.Fatalf("err %v, want a *BindError wrapping ErrNoToken", err)
			}
			for _, s := range []string{"--token-file", TokenEnv, "--insecure", tt.opts.Addr} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err %q does not name %s", err, s)
				}
			}
		})
	}
}

func FuzzParseTokens(f *testing.F) {
	for _, seed := range []string{"", "#\n", tokA + "\n" + tokB, "short", "a b", "\r\n\r\n", strings.Repeat("x", maxTokenBytes+1)} {
		f.Add([]byte(seed))
	}
	if b, err := os.ReadFile("testdata/tokens.txt"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		toks, err := parseTokens("f", data)
		if err != nil {
			var te *TokenError
			if !errors.As(err, &te) || te.File != "f" {
				t.Fatalf("error %v is not a *TokenError naming the file", err)
			}
			_ = err.Error()
			return
		}
		if len(toks) == 0 {
			t.Fatal("no error and no tokens")
		}
		for _, tok := range toks {
			if checkToken(tok) != nil {
				t.Fatalf("accepted a bad token %q", tok)
			}
		}
	})
}
