package config

import (
	"fmt"
	"strings"
)

// The TOML parser copies a key's parts and its tables' contexts at each
// level, so nesting and dotted keys cost it time and memory by the square
// of their length. 10,000 nested inline tables in 40 KB took 4.1 GB. Its
// time grows faster than the number of keys too (10,000 dotted keys of
// 16 parts took 6 s on a loaded machine). A config a person writes nests
// two or three deep and sets tens of keys, so the file is scanned for
// these shapes first, and one past a bound is refused before the parser
// sees it. Within the bounds the parse takes milliseconds.
const (
	maxDepth    = 16     // arrays and inline tables, one in another
	maxKeyParts = 8      // a.b.c, in a key or a table header
	maxKeys     = 1_000  // keys and table headers in all
	maxElements = 10_000 // array elements in all
	// maxExpanded bounds the bytes ${ENV} expands to, over every header.
	// Most servers refuse a header past a few KiB anyway.
	maxExpanded = 1 << 20
)

// shapeError is a bound the file passes, at a line.
type shapeError struct {
	line int
	what string
}

func (e *shapeError) Error() string { return e.what }

// scanner walks TOML text as its lexer would, only far enough to tell
// strings, comments, keys and values apart.
type scanner struct {
	text  string
	i     int
	line  int
	stack []byte // the '[' and '{' open around a value
	keys  int
	elems int // array elements, counted at their commas
	parts int // the dotted parts of the key being read
}

// checkShape refuses text whose nesting, dotted keys or number of keys
// is past a bound. It is linear in the text and allocates nothing but
// the stack. A file that is no TOML is left to the parser to say so.
func checkShape(text string) error {
	s := &scanner{text: text, line: 1}
	inKey, inHeader := true, false
	for ; s.i < len(text); s.i++ {
		c := text[s.i]
		var err error
		switch {
		case c == '\n':
			s.line++
			if len(s.stack) == 0 {
				inKey, inHeader = true, false
			}
		case c == '#':
			s.skipComment()
		case c == '"' || c == '\'':
			s.skipString(c)
		case inHeader:
			inHeader, err = s.header(c)
		case inKey:
			inKey, inHeader, err = s.key(c)
		default:
			inKey, err = s.value(c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// key reads c in a key. A dot adds a part and '=' ends it. At the top '['
// opens a table header, and '}' closes an empty inline table.
func (s *scanner) key(c byte) (inKey, inHeader bool, err error) {
	switch c {
	case '.':
		return true, false, s.part()
	case '=':
		s.parts = 0
		return false, false, s.key1()
	case '[':
		if len(s.stack) == 0 {
			if s.i+1 < len(s.text) && s.text[s.i+1] == '[' {
				s.i++ // [[array of tables]]
			}
			return false, true, nil
		}
	case '}':
		s.pop('{')
		return false, false, nil
	}
	return true, false, nil
}

// header reads c in a table header, which ends at ']'.
func (s *scanner) header(c byte) (inHeader bool, err error) {
	switch c {
	case '.':
		return true, s.part()
	case ']':
		s.parts = 0
		return false, s.key1()
	}
	return true, nil
}

// value reads c in a value. Brackets and braces nest, and a ',' in an
// inline table starts its next key. It reports whether a key comes next.
func (s *scanner) value(c byte) (inKey bool, err error) {
	switch c {
	case '[', '{':
		s.stack = append(s.stack, c)
		if len(s.stack) > maxDepth {
			return false, &shapeError{s.line, fmt.Sprintf("nested deeper than %d (arrays and inline tables)", maxDepth)}
		}
		return c == '{', nil
	case ']':
		s.pop('[')
	case '}':
		s.pop('{')
	case ',':
		if n := len(s.stack); n > 0 && s.stack[n-1] == '[' {
			if s.elems++; s.elems > maxElements {
				return false, &shapeError{s.line, fmt.Sprintf("more than %d array elements", maxElements)}
			}
		}
		return len(s.stack) > 0 && s.stack[len(s.stack)-1] == '{', nil
	}
	return false, nil
}

func (s *scanner) pop(open byte) {
	if n := len(s.stack); n > 0 && s.stack[n-1] == open {
		s.stack = s.stack[:n-1]
	}
}

func (s *scanner) part() error {
	if s.parts++; s.parts >= maxKeyParts {
		return &shapeError{s.line, fmt.Sprintf("a key of more than %d dotted parts", maxKeyParts)}
	}
	return nil
}

// key1 counts one more key or table header.
func (s *scanner) key1() error {
	if s.keys++; s.keys > maxKeys {
		return &shapeError{s.line, fmt.Sprintf("more than %d keys", maxKeys)}
	}
	return nil
}

func (s *scanner) skipComment() {
	for s.i+1 < len(s.text) && s.text[s.i+1] != '\n' {
		s.i++
	}
}

// skipString moves past the string that starts at s.i with quote q. The
// string is basic ("…", escapes) or literal ('…'), on one line or, with
// three quotes, on many. An unterminated one ends at the line (one-line)
// or the text's end.
func (s *scanner) skipString(q byte) {
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(s.text[s.i:], triple) {
		s.i += 3
		for ; s.i < len(s.text); s.i++ {
			switch {
			case s.text[s.i] == '\\' && q == '"':
				s.i++
				if s.i < len(s.text) && s.text[s.i] == '\n' {
					s.line++
				}
			case s.text[s.i] == '\n':
				s.line++
			case strings.HasPrefix(s.text[s.i:], triple):
				s.i += 2
				for s.i+1 < len(s.text) && s.text[s.i+1] == q {
					s.i++ // """"" ends with quotes in the string
				}
				return
			}
		}
		return
	}
	for s.i++; s.i < len(s.text) && s.text[s.i] != q && s.text[s.i] != '\n'; s.i++ {
		if s.text[s.i] == '\\' && q == '"' && s.i+1 < len(s.text) && s.text[s.i+1] != '\n' {
			s.i++
		}
	}
	if s.i < len(s.text) && s.text[s.i] == '\n' {
		s.i-- // the line end is the main loop's to count
	}
}
