package replay

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// formatWatch decodes a replayed stream in its recorded format and, on the
// side, reads its first bytes as drip record reads a stream's
// (adapters.Detector, given the response's Content-Type). A stream that
// ends without the recorded format's end marker, and with no content that
// format could read, can then say which format the server spoke instead.
type formatWatch struct {
	inner       adapters.Decoder
	det         *adapters.Detector
	scratch     []adapters.Frame
	contentType string // the response's, noted by the client before decoding starts
	content     bool   // the recorded format's decoder read a content frame
}

// watchFormat watches t's decoder and gives o a client that notes the
// response's Content-Type for the watch. It returns nil and leaves t and o
// for adapters.Auto, which detects the format itself (the probe knows it by
// identity).
func watchFormat(t *probe.Target, o *probe.Options) *formatWatch {
	f := t.Format
	if f == adapters.Auto {
		return nil
	}
	w := &formatWatch{}
	g := *f
	g.NewDecoder = func(limit int) adapters.Decoder {
		w.inner, w.det = f.NewDecoder(limit), adapters.NewDetector(w.contentType, limit)
		return w
	}
	t.Format = &g
	c := o.Client
	if c == nil {
		c = probe.ClientFor(*o) // as the probe would make for this stream
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	noting := *c
	noting.Transport = typeNoter{next, w}
	o.Client = &noting
	return w
}

// typeNoter notes each response's Content-Type (the last is the one
// decoded, after any redirect).
type typeNoter struct {
	next http.RoundTripper
	w    *formatWatch
}

func (t typeNoter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		t.w.contentType = resp.Header.Get("Content-Type")
	}
	return resp, err
}

func (w *formatWatch) Feed(dst []adapters.Frame, p []byte) ([]adapters.Frame, error) {
	n := len(dst)
	dst, err := w.inner.Feed(dst, p)
	w.noteContent(dst[n:])
	if w.det.Format() == nil { // the detector decides within its first 64 KiB
		w.scratch, _ = w.det.Feed(w.scratch[:0], p)
	}
	return dst, err
}

func (w *formatWatch) Close(dst []adapters.Frame) ([]adapters.Frame, error) {
	if w.det.Format() == nil {
		w.det.Close(nil) // decides on what came
	}
	n := len(dst)
	dst, err := w.inner.Close(dst)
	w.noteContent(dst[n:])
	return dst, err
}

func (w *formatWatch) noteContent(fs []adapters.Frame) {
	for i := 0; i < len(fs) && !w.content; i++ {
		w.content = fs[i].Kind == adapters.KindContent
	}
}

// explain gives a replayed stream that ended incomplete, with no error,
// the reason when its bytes were another format than the recorded one. The
// reason is a decode error saying which, so the user is told rather than left with an
// incomplete stream and no reason. A stream the recorded format read
// content from spoke it, whatever its first event looked like (Azure's
// starts with a prompt_filter_results chunk). It ended incomplete for
// its own reason.
func (w *formatWatch) explain(rec *record.Record, recorded string) {
	if w == nil || w.det == nil || w.content || rec.Error != nil || rec.Status != record.StatusIncomplete || rec.FirstByteMS == nil {
		return
	}
	spoke := w.det.Format()
	if spoke == nil || spoke.Name == recorded {
		return
	}
	as := "in " + spoke.Name
	if spoke.Name == "raw" {
		as = "in no format drip knows (read as raw bytes)"
	}
	rec.Error = &record.Error{Class: record.ErrDecode, Message: fmt.Sprintf(
		"the server answered %s, not in %s as recorded, so no %s end marker came: replay against a server that speaks %s", as, recorded, recorded, recorded)}
	stats.Derive(rec, rec.StallMS) // failed, as the record read back derives it
}

// Lag says in words how closely a replay paced by a schedule kept to it
// (st from Run). It gives its schedule lag, judged against the bound that makes a
// run client-limited, and the arrivals not admitted. "" for a closed loop,
// which has no schedule.
func (o Options) Lag(st stats.RunStats) string {
	if o.Concurrency > 0 {
		return ""
	}
	verdict := "within"
	if st.ClientLimited {
		verdict = "OVER: client-limited, the replay's load is shaped by this machine, not the schedule"
	}
	l := &st.Lag
	return fmt.Sprintf("schedule lag p50 %s p99 %s max %s (n=%d), bound p99 %s: %s · %d not admitted (over %d in flight)",
		textfmt.OptMS(l.P50), textfmt.OptMS(l.P99), textfmt.OptMS(l.Max), l.N, textfmt.MS(st.LagBoundMS), verdict, st.NotAdmitted, probe.DefaultMaxInflight)
}
