package probe

import (
	"io"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/record"
)

// headLimit is how much of a body's start formatHead keeps: the first
// event of every format drip reads (an OpenAI chunk is 200–400 bytes),
// at a cost of 1 KiB per stream in flight.
const headLimit = 1 << 10

// formatHead passes a body through, keeping a copy of its first bytes so
// that a stream that fails to decode can say which format it looks like.
type formatHead struct {
	r    io.Reader
	head []byte
}

func (h *formatHead) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if room := headLimit - len(h.head); room > 0 && n > 0 {
		if h.head == nil {
			h.head = make([]byte, 0, headLimit) // once: no regrowth on the read path
		}
		h.head = append(h.head, p[:min(n, room)]...)
	}
	return n, err
}

// formatMismatch adds to a decode error of a stream read as f (named with
// --format or by the URL's path) the format its first bytes look like,
// when that is another: --format anthropic against an OpenAI stream fails
// late, at its [DONE], and the error alone does not say why.
func formatMismatch(e *record.Error, f *adapters.Format, contentType string, head []byte) *record.Error {
	if e == nil || e.Class != record.ErrDecode || f == adapters.Auto || len(head) == 0 {
		return e
	}
	looks := adapters.Sniff(contentType, head)
	if looks == nil || looks == f || looks.Name == "raw" {
		return e
	}
	e.Message += "; the stream looks like " + looks.Name + ", not " + f.Name + ": try --format " + looks.Name + " (or a URL path that names it)"
	return e
}
