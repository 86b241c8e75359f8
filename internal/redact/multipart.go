package redact

import (
	"bufio"
	"bytes"
	"mime"
	"net/textproto"
)

// Multipart masks the content of a multipart/form-data body's secret
// fields (a part named client_secret or password) as Form masks a
// url-encoded form's, and names them. Every other byte is kept as it came,
// so the body stays multipart. b comes back when nothing was masked, or
// when it holds no part delimited by boundary.
func Multipart(b []byte, boundary string) ([]byte, []string) {
	if boundary == "" {
		return b, nil
	}
	next := []byte("\n--" + boundary) // a CR before it, if any, ends the content too
	at := bytes.Index(b, next[1:])    // the first delimiter may open the body
	var (
		out    []byte
		copied int
		names  []string
	)
	for at >= 0 {
		from, to, name := nextPart(b, at, next)
		if to < 0 {
			break
		}
		if IsSecret(name) {
			out = append(append(out, b[copied:from]...), Redacted...)
			copied, names = to, append(names, name)
		}
		at = bytes.Index(b[to:], next) + to + 1
	}
	if out == nil {
		return b, nil
	}
	return append(out, b[copied:]...), names
}

// nextPart finds the part whose delimiter line starts at b[at:]. Its
// content is b[from:to], up to the next delimiter, and name is its form
// field's name. to is -1 when no whole part follows. Lines may end in
// CRLF or LF alone, as mime/multipart reads them.
func nextPart(b []byte, at int, next []byte) (from, to int, name string) {
	line := bytes.IndexByte(b[at:], '\n')
	if line < 0 {
		return 0, -1, ""
	}
	head := at + line + 1
	from = contentStart(b, head)
	if from < 0 {
		return 0, -1, ""
	}
	end := bytes.Index(b[from:], next)
	if end < 0 {
		return 0, -1, ""
	}
	to = from + end
	if to > from && b[to-1] == '\r' {
		to--
	}
	hdr, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(b[head:from]))).ReadMIMEHeader()
	if err == nil {
		_, params, _ := mime.ParseMediaType(hdr.Get("Content-Disposition"))
		name = params["name"]
	}
	return from, to, name
}

// contentStart is where a part's content begins, after the first empty
// line from head on (-1 when there is none).
func contentStart(b []byte, head int) int {
	for i := head; i < len(b); {
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			return -1
		}
		if line := b[i : i+nl]; len(line) == 0 || string(line) == "\r" {
			return i + nl + 1
		}
		i += nl + 1
	}
	return -1
}
