// Package jsoncheck tells whether bytes are one well-formed JSON value,
// with exactly the answer encoding/json.Valid gives, several times faster,
// and walks a JSON object's members without decoding them (Members,
// SkipValue): the one scanner both the server (mcp) and the client
// (mcpclient) read messages with.
//
// Every message a server reads is checked before it is taken apart, so the
// check is on the path of every request: encoding/json's scanner calls a
// state function per byte, which for a 150-byte request costs about as
// much as answering a ping. This package walks the grammar directly.
//
// The rules are RFC 8259's, as encoding/json applies them: whitespace is
// space, tab, CR and LF; a string may hold any byte from 0x20 up, valid
// UTF-8 or not (encoding/json replaces invalid sequences when decoding,
// it does not reject them); escapes are \" \\ \/ \b \f \n \r \t and \u
// with four hex digits; nesting deeper than 10,000 levels is refused, as
// encoding/json refuses it. Fuzz targets hold Valid to json.Valid on
// any input, and Members to what encoding/json reads of a valid object.
package jsoncheck
