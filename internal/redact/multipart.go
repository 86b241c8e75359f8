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
	next := []byte("\r\n--" + boundary)
	at := bytes.Index(b, next[2:]) // the first delimiter may open the body
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
		at = to + 2
	}
	if out == nil {
		return b, nil
	}
	return append(out, b[copied:]...), names
}

// nextPart finds the part whose delimiter line starts at b[at:]: its
// content is b[from:to], up to the next delimiter, and name is its form
// field's name. to is -1 when no whole part follows.
func nextPart(b []byte, at int, next []byte) (from, to int, name string) {
	line := bytes.Index(b[at:], []byte("\r\n"))
	if line < 0 {
		return 0, -1, ""
	}
	head := at + line + 2
	blank := bytes.Index(b[head:], []byte("\r\n\r\n"))
	if blank < 0 {
		return 0, -1, ""
	}
	from = head + blank + 4
	end := bytes.Index(b[from:], next)
	if end < 0 {
		return 0, -1, ""
	}
	hdr, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(b[head:from]))).ReadMIMEHeader()
	if err == nil {
		_, params, _ := mime.ParseMediaType(hdr.Get("Content-Disposition"))
		name = params["name"]
	}
	return from, from + end, name
}
