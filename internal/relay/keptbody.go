package relay

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/driplab/drip/internal/redact"
)

// removedRequestKey is the name, after "body ", of a request body's
// credential the request itself carries (a prompt quoting its key).
const removedRequestKey = "(a credential of the request's, starred)"

// keepBody stores the request body as the record keeps it and a replay
// sends it, and returns the body's text for finding its model and stream
// flag. The body is masked by what it is, whatever its content type says.
// Secret members and URLs' secret query parameters of a JSON text become
// Redacted (redact.JSON), and so do a form's secret fields, url-encoded or
// multipart. The request's own credentials are starred wherever they stand.
// A gzip'd body is masked inside and kept gzip'd, so a replay sends what
// the upstream expects. exchange.removed names each thing masked as
// "body NAME". The upstream got the body as it was sent.
func (e *exchange) keepBody() []byte {
	h := http.Header(e.x.Header)
	text, zipped, err := unzipBody(e.body, h.Get("Content-Encoding"))
	if err != nil {
		// A body drip cannot read cannot be masked, so it is not kept.
		e.x.BodyOmitted = err.Error() + ": forwarded, not kept"
		e.x.SetBody(nil)
		return nil
	}
	kept, names := maskBody(text, h.Get("Content-Type"))
	if starred := e.mask.JSONEscaped(e.mask.Bytes(kept)); !bytes.Equal(starred, kept) {
		kept, names = starred, append(names, removedRequestKey)
	}
	for _, n := range names {
		e.x.Removed = append(e.x.Removed, "body "+n)
	}
	slices.Sort(e.x.Removed)
	if zipped && names != nil {
		kept = gzipped(kept)
	} else if zipped {
		kept = e.body // nothing masked, so keep the bytes as they were sent
	}
	e.x.SetBody(kept)
	return text
}

// maskBody masks a body's secrets by what the body is. It reads it as
// JSON when it parses as JSON, else as a form by its content type.
func maskBody(b []byte, contentType string) ([]byte, []string) {
	if json.Valid(b) {
		return redact.JSON(b)
	}
	mt, params, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "application/x-www-form-urlencoded":
		return redact.Form(b)
	case "multipart/form-data":
		return redact.Multipart(b, params["boundary"])
	}
	return b, nil
}

// unzipBody is a request body as text, and whether it came gzip'd. An
// encoding other than gzip, a broken gzip stream and one that inflates past
// maxRequestBody are errors, as drip cannot mask what it cannot read.
func unzipBody(b []byte, encoding string) (text []byte, zipped bool, err error) {
	switch enc := strings.ToLower(strings.TrimSpace(encoding)); enc {
	case "", "identity":
		return b, false, nil
	case "gzip", "x-gzip":
	default:
		return nil, false, fmt.Errorf("encoded as %.40q", enc)
	}
	if len(b) == 0 {
		return b, false, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, false, fmt.Errorf("gzip that does not decode")
	}
	text, err = io.ReadAll(io.LimitReader(zr, maxRequestBody+1))
	switch {
	case err != nil:
		return nil, false, fmt.Errorf("gzip that does not decode")
	case len(text) > maxRequestBody:
		return nil, false, fmt.Errorf("gzip over %d MiB decoded", maxRequestBody>>20)
	}
	return text, true, nil
}

// gzipped is b compressed in one gzip stream.
func gzipped(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}
