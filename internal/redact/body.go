package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON masks the secrets a JSON text names, at any depth. The string value
// of every member whose name is a secret (IsSecret, such as "api_key",
// "client_secret" or "password") becomes Redacted, and so does every
// string in an array or object under such a member. In every other string
// the values of secret query parameters of the URLs it holds (a presigned
// URL's X-Amz-Signature) become Redacted too (Query). Only strings are
// masked, because a secret is text and "max_tokens": 100 is a count.
// removed names what was masked, sorted, once each, by the member's name
// or as "query NAME". The rest of b is kept byte for byte. b itself comes
// back when nothing was masked, or when b is not JSON.
func JSON(b []byte) (out []byte, removed []string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var (
		w     = jsonWalk{b: b}
		stack []member // one per open object or array
	)
	for {
		from := int(dec.InputOffset())
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return b, nil
		}
		top := (*member)(nil)
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, open(top, t == '{'))
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if top != nil && top.wantName {
				top.name, top.wantName = t, false
				continue
			}
			name := under(top) // a string under a secret member is its secret, named by the innermost
			if top != nil && top.object && !IsSecret(name) {
				name = top.name
			}
			if top != nil && (top.words || top.object && schemaWords[top.name]) {
				name = "" // a schema's word, as in "type": "string", is no secret
			}
			w.value(from, int(dec.InputOffset()), name, t)
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantName = true // a value ended, so a name comes next
		}
	}
	if w.out == nil {
		return b, nil
	}
	slices.Sort(w.removed)
	return append(w.out, b[w.copied:]...), slices.Compact(w.removed)
}

// member is where JSON's walk is in one object or array.
type member struct {
	object   bool
	wantName bool   // the next string of an object is a member's name
	name     string // the name of the object's member being read
	under    string // the secret member it is inside, at any depth, or ""
	// names marks a JSON Schema's map of names to schemas ("properties" of
	// a tool's parameters, "$defs"). Its members name fields and types, so
	// "password": {"type": "string"} holds no secret.
	names bool
	// words marks an array of a schema's words, as in an "enum".
	words bool
}

// schemaMaps are the JSON Schema keywords whose objects map names to
// schemas, and schemaWords those whose strings are a schema's own words.
// A tool's parameters use them, and masking them would break the schema
// a replay sends.
var (
	schemaMaps  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true}
	schemaWords = map[string]bool{"type": true, "enum": true, "$ref": true, "format": true}
)

// open is the member an object or array opens inside top.
func open(top *member, object bool) member {
	m := member{object: object, wantName: object, under: under(top)}
	if top != nil && top.object {
		m.names = object && schemaMaps[top.name]
		m.words = !object && schemaWords[top.name]
	}
	return m
}

// under is the innermost secret member a value read in top is held by.
// It is top's member being read when its name is a secret, else the one
// top is inside, and "" when none.
func under(top *member) string {
	switch {
	case top == nil:
		return ""
	case top.object && IsSecret(top.name) && !top.names:
		return top.name
	}
	return top.under
}

// jsonWalk rewrites the strings JSON masks, copying the rest of b as it is.
type jsonWalk struct {
	b       []byte
	out     []byte // nil until a string is masked
	copied  int    // b[:copied] is in out
	removed []string
}

// value masks the string s, a value of the member name (or of an array,
// name ""), which b holds in b[from:to] after any white space and a ':'
// or ','.
func (w *jsonWalk) value(from, to int, name, s string) {
	masked := s
	switch {
	case IsSecret(name):
		if s == "" || s == Redacted {
			return
		}
		masked = Redacted
		w.removed = append(w.removed, name)
	case strings.Contains(s, "://"):
		var names []string
		masked, names = urlQueries(s)
		for _, n := range names {
			w.removed = append(w.removed, "query "+n)
		}
	}
	if masked == s {
		return
	}
	start := from + bytes.IndexByte(w.b[from:to], '"')
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	e.Encode(masked)
	w.out = append(append(w.out, w.b[w.copied:start]...), bytes.TrimSuffix(enc.Bytes(), []byte("\n"))...)
	w.copied = to
}

// urlQueries masks the secret query values of every URL in s (a word
// holding "://", up to white space, a quote or an angle bracket), and
// names the parameters it masked.
func urlQueries(s string) (string, []string) {
	var (
		b     strings.Builder
		names []string
		rest  = s
	)
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		end := i + strings.IndexFunc(rest[i:]+" ", func(r rune) bool { return r <= ' ' || strings.ContainsRune(`"'<>`, r) })
		u := rest[:end]
		if q := strings.IndexByte(u, '?'); q >= 0 {
			query, frag, hasFrag := strings.Cut(u[q+1:], "#")
			masked, n := redactQuery(query)
			names = append(names, n...)
			u = u[:q+1] + masked
			if hasFrag {
				u += "#" + frag
			}
		}
		b.WriteString(u)
		rest = rest[end:]
	}
	b.WriteString(rest)
	return b.String(), names
}

// JSONEscaped masks the secrets a JSON string holds only escaped. A server
// that answers a key sk-ab/cd with "sk-ab\/cd" (or \u002b for +) has it in
// its body where Bytes, comparing bytes, does not see it. Each string of b
// that has an escape is decoded, and where its text holds a secret, every
// byte that spells it in b becomes '*', an escape wholly, so lengths stay
// as they were and a JSON text stays JSON. b comes back when nothing was
// masked. It reads any text, finding the strings by their quotes.
func (m *Masker) JSONEscaped(b []byte) []byte {
	if m == nil || bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := stringEnd(b, i+1)
		if bytes.IndexByte(b[i+1:end], '\\') >= 0 {
			out = m.starEscaped(b, out, i+1, end)
		}
		i = end
	}
	if out == nil {
		return b
	}
	return out
}

// stringEnd is the index of the quote that ends a JSON string begun at
// from (len(b) if b ends first).
func stringEnd(b []byte, from int) int {
	for j := from; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b)
}

// starEscaped stars, in out (a copy of b made when first needed), the
// bytes of b[from:to] that spell a secret once the string is decoded.
func (m *Masker) starEscaped(b, out []byte, from, to int) []byte {
	text, spans := unescape(b[from:to])
	masked, ok := m.mask(text)
	if !ok {
		return out
	}
	for k := range masked {
		if masked[k] != '*' || text[k] == '*' {
			continue
		}
		if out == nil {
			out = bytes.Clone(b)
		}
		for j := from + spans[k][0]; j < from+spans[k][1]; j++ {
			out[j] = '*'
		}
	}
	return out
}

// unescape decodes the text of a JSON string (between its quotes) and
// gives, for each decoded byte, the span of s that spells it. An escape
// counts wholly, and a \u pair of surrogates as one.
func unescape(s []byte) (text []byte, spans [][2]int) {
	for j := 0; j < len(s); {
		start := j
		var piece []byte
		switch {
		case s[j] != '\\' || j+1 == len(s):
			piece, j = s[j:j+1], j+1
		case s[j+1] == 'u':
			var r rune
			r, j = unescapeU(s, j)
			piece = utf8.AppendRune(nil, r)
		default:
			c := s[j+1]
			if i := strings.IndexByte(`bfnrt`, c); i >= 0 {
				c = "\b\f\n\r\t"[i]
			}
			piece, j = []byte{c}, j+2
		}
		for _, c := range piece {
			text = append(text, c)
			spans = append(spans, [2]int{start, j})
		}
	}
	return text, spans
}

// unescapeU decodes the \uXXXX escape at s[j:] (with the low surrogate
// that follows a high one) and returns the rune and where it ends. An
// escape that is not one is the replacement character over its two bytes.
func unescapeU(s []byte, j int) (rune, int) {
	hex := func(at int) (rune, bool) {
		if at+6 > len(s) || s[at] != '\\' || s[at+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(s[at+2:at+6]), 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(j)
	if !ok {
		return utf8.RuneError, j + 2
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := hex(j + 6); ok {
			if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
				return d, j + 12
			}
		}
	}
	return r, j + 6
}

// Form masks the values of a form body's secret fields, as in
// application/x-www-form-urlencoded's grant_type=…&client_secret=…, as
// Query masks a URL's, and names them. b comes back when none was.
func Form(b []byte) ([]byte, []string) {
	q, names := redactQuery(string(b))
	if names == nil {
		return b, nil
	}
	return []byte(q), names
}
