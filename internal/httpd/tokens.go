package httpd

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// Token limits (docs/http.md §2).
const (
	// minTokenBytes is the shortest token accepted: 16 bytes of a random
	// hex or base64 string is still 64+ bits; anything shorter is a
	// password someone typed.
	minTokenBytes = 16
	// maxTokenBytes bounds one token, so a token file can't be a dump.
	maxTokenBytes = 4096
)

// Errors a token or token file can give, wrapped in a *TokenError.
var (
	errTokenTooShort = errors.New("token too short")
	errTokenTooLong  = errors.New("token too long")
	// errTokenChars: a token is sent in an Authorization header, so it is
	// restricted to RFC 6750's b64token characters.
	errTokenChars = errors.New("token has a character outside A-Z a-z 0-9 - . _ ~ + / =")
	errNoTokens   = errors.New("no tokens")
)

// TokenError says which token is wrong and where it came from. Line is 0
// for a token not read from a file, or for an error about the whole file.
// The token itself is never part of the message.
type TokenError struct {
	File string // "" for a token given directly (Options.Tokens)
	Line int
	Err  error
}

func (e *TokenError) Error() string {
	where := "token"
	switch {
	case e.File != "" && e.Line > 0:
		where = fmt.Sprintf("%s:%d", e.File, e.Line)
	case e.File != "":
		where = e.File
	}
	msg := e.Err.Error()
	switch {
	case errors.Is(e.Err, errTokenTooShort):
		msg += fmt.Sprintf(" (use at least %d bytes, e.g. the output of `openssl rand -hex 32`)", minTokenBytes)
	case errors.Is(e.Err, errTokenTooLong):
		msg += fmt.Sprintf(" (at most %d bytes)", maxTokenBytes)
	case errors.Is(e.Err, errNoTokens):
		msg += " (one token a line; blank lines and # comments are ignored)"
	}
	return where + ": " + msg
}

func (e *TokenError) Unwrap() error { return e.Err }

// parseTokens reads a token file's text: one token a line, surrounding
// spaces trimmed, blank lines and lines starting with # ignored. name is
// used in errors only. A file with no token is an error: it is certainly
// a mistake when the operator pointed at it.
func parseTokens(name string, data []byte) ([]string, error) {
	var toks []string
	for i, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if err := checkToken(s); err != nil {
			return nil, &TokenError{File: name, Line: i + 1, Err: err}
		}
		toks = append(toks, s)
	}
	if len(toks) == 0 {
		return nil, &TokenError{File: name, Err: errNoTokens}
	}
	return toks, nil
}

// checkToken applies the token rules of docs/http.md §2.
func checkToken(s string) error {
	if len(s) > maxTokenBytes {
		return fmt.Errorf("%w: %d bytes", errTokenTooLong, len(s))
	}
	if len(s) < minTokenBytes {
		return fmt.Errorf("%w: %d bytes", errTokenTooShort, len(s))
	}
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return fmt.Errorf("%w (byte %d)", errTokenChars, i+1)
		}
	}
	return nil
}

func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/=", c) >= 0
}

// ReadTokenFile reads and parses path. The server reads its accepted
// tokens with it, and cmd's selftest the token it sends, so both read one
// format. The file is read as every credential file is (credfile.go): a
// regular file only, bounded in size and time; what cannot be read is a
// *CredentialError, what does not parse a *TokenError.
func ReadTokenFile(path string) ([]string, error) {
	return readTokenFile(path, clientCredLimits)
}

func readTokenFile(path string, lim credLimits) ([]string, error) {
	data, err := readCredential(KindTokenFile, path, lim)
	if err != nil {
		return nil, err
	}
	return parseTokens(path, data)
}

// tokenDigest is what is kept of a token: its SHA-256. Comparing digests
// in constant time makes the time taken independent of both the token's
// length and how many leading bytes a guess got right.
type tokenDigest = [sha256.Size]byte

// tokenStore holds the accepted tokens. Whether tokens are required is
// decided once, at start: a reload can change the set, never turn
// authentication off.
type tokenStore struct {
	file     string
	lim      credLimits
	static   []tokenDigest
	required bool
	set      atomic.Pointer[[]tokenDigest]
}

// newTokenStore checks and loads the static tokens and the file.
func newTokenStore(file string, static []string, lim credLimits) (*tokenStore, error) {
	t := &tokenStore{file: file, lim: lim}
	for _, s := range static {
		s = strings.TrimSpace(s)
		if s == "" { // an empty AGENT3MD_TOKEN means none, not a bad one
			continue
		}
		if err := checkToken(s); err != nil {
			return nil, &TokenError{Err: err}
		}
		t.static = append(t.static, sha256.Sum256([]byte(s)))
	}
	if err := t.reload(); err != nil {
		return nil, err
	}
	t.required = t.count() > 0
	return t, nil
}

// reload reads the file again. On error the tokens in use are kept.
func (t *tokenStore) reload() error {
	set := append([]tokenDigest(nil), t.static...)
	if t.file != "" {
		toks, err := readTokenFile(t.file, t.lim)
		if err != nil {
			return err
		}
		for _, s := range toks {
			set = append(set, sha256.Sum256([]byte(s)))
		}
	}
	t.set.Store(&set)
	return nil
}

func (t *tokenStore) count() int {
	if p := t.set.Load(); p != nil {
		return len(*p)
	}
	return 0
}

// match reports whether tok is one of the accepted tokens. It compares
// against every token without stopping early, so the time taken does not
// say which one, or whether any, matched.
func (t *tokenStore) match(tok string) bool {
	d := sha256.Sum256([]byte(tok))
	ok := 0
	for _, h := range *t.set.Load() {
		ok |= subtle.ConstantTimeCompare(d[:], h[:])
	}
	return ok == 1
}

// bearer returns the token of an "Authorization: Bearer TOKEN" header,
// and whether any Authorization header was sent. The scheme is
// case-insensitive (RFC 9110 §11.1); two Authorization headers are a
// malformed request and give no token.
func bearer(r *http.Request) (tok string, sent bool) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		return "", false
	}
	if len(vals) > 1 {
		return "", true
	}
	scheme, rest, ok := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(rest), true
}

// realm names the protection space in WWW-Authenticate.
const realm = "agent3md"

// authorize answers 401 unless the request carries an accepted token. It
// reports whether the request may go on.
func (t *tokenStore) authorize(w http.ResponseWriter, r *http.Request) bool {
	if !t.required {
		return true
	}
	tok, sent := bearer(r)
	if tok != "" && t.match(tok) {
		return true
	}
	if ri := infoFrom(r.Context()); ri != nil {
		switch {
		case !sent:
			ri.auth = AuthMissing
		case tok == "":
			ri.auth = AuthMalformed
		default:
			ri.auth = AuthInvalid
		}
	}
	// RFC 6750 §3.1: no error code when the request had no credentials.
	challenge := `Bearer realm="` + realm + `"`
	msg := "Unauthorized: send Authorization: Bearer <token>"
	if sent {
		challenge += `, error="invalid_token", error_description="the bearer token is not accepted"`
		msg = "Unauthorized: the bearer token is not accepted"
	}
	w.Header().Set("WWW-Authenticate", challenge)
	writeError(w, http.StatusUnauthorized, codeInvalidRequest, msg, nil)
	return false
}
