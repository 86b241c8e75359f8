package relay

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/recordmask"
	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// exchange is one request through the proxy.
type exchange struct {
	p    *Proxy
	rec  *record.Record
	x    *record.Exchange
	conn *client
	body []byte
	// rest is the request body past body, when the record does not keep
	// it (omitted says why). reserved is what body took of the bound on
	// bodies in flight.
	rest     io.Reader
	omitted  string
	reserved int
	// respTaken is what resp took of the bound on responses in flight,
	// and overResponses says the bound left no room for a read.
	respTaken     int
	overResponses bool
	path          string         // the client's request path, decoded
	rawPath       string         // the same path as the client wrote it
	mask          *redact.Masker // the request's credentials, kept out of the record
	resp          []byte         // the response body as it came, up to MaxBytes
	// What forwarding saw, for finish. These are when it began and ended,
	// the reads and how it ended.
	start, end time.Time
	reads      []record.Read
	perr       *record.Error
	retryAfter string   // the upstream's Retry-After, kept in the error as drip run keeps it
	location   string   // the upstream's Location, kept as finish resolves it
	sent       *url.URL // the URL the request went to, which the Location is relative to
	// cut says the response to the client broke off, because the upstream
	// failed or drip record stopped mid-body. The client's must break off
	// too, never end as if whole.
	cut bool
	// mergedReads says keep merged the reads past MaxFrames into the last
	// one. merged is the index of the first read (decoded, once decompress
	// ran) whose frames have the last read's time, not their own.
	mergedReads bool
	merged      int
	live        *hops.Relayed    // this stream's times for the hops endpoint, nil when not kept
	up          *upstreamWitness // the kernel's account of the upstream reads, or nil
}

// bufs are the forwarding loops' read buffers. Without them, 100 streams
// would allocate 3 MiB, and start the GC, every time they start.
var bufs = sync.Pool{New: func() any { return new([readBufferSize]byte) }}

// run forwards the request and streams the response to the client read by
// read, keeping what finish needs to build the record.
func (e *exchange) run(w http.ResponseWriter, r *http.Request) {
	o := &e.p.o
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	stop := context.AfterFunc(e.p.ctx, func() { cancel(errStopped) })
	defer stop()
	ctx, cancelTotal := context.WithTimeoutCause(ctx, o.Timeout, errTotal)
	defer cancelTotal()
	// Past its time, or drip record stopping, the exchange waits on its
	// client no more (a client that stopped reading, or sending).
	uncut := context.AfterFunc(ctx, e.conn.cut)
	defer uncut() // runs before cancel, so an exchange that ended cuts nothing

	var reqBody io.Reader = bytes.NewReader(e.body)
	length := int64(len(e.body))
	if e.rest != nil {
		reqBody, length = io.MultiReader(reqBody, e.rest), r.ContentLength // -1 means sent chunked
	}
	out, err := http.NewRequestWithContext(ctx, r.Method, e.p.upstreamURL(r.URL, r.URL.RawQuery).String(), reqBody)
	if err != nil {
		e.fail(w, time.Time{}, &record.Error{Class: record.ErrRequest, Message: "bad upstream URL"})
		return
	}
	out.Header = forwardHeader(r.Header)
	out.ContentLength = length
	idle := probe.WatchIdle(o.IdleTimeout, o.Clock, func() { cancel(errIdle) })
	defer idle.Stop()

	var upConn net.Conn
	out = traceConn(out, &upConn)
	e.rec.StartUnixNS = time.Now().UnixNano()
	start := o.Clock()
	resp, err := o.Client.Do(out)
	if err != nil {
		e.fail(w, start, classify(ctx, r, err))
		return
	}
	defer resp.Body.Close()
	e.rec.HeadersMS = new(ms(o.Clock().Sub(start)))
	e.up = witnessUpstream(upConn, e.p.wallClock, *e.rec.HeadersMS)
	e.p.live.update(e.live, func(l *hops.Relayed) { l.HeadersMS = e.rec.HeadersMS })
	e.rec.HTTPStatus = resp.StatusCode
	idle.Touch(o.Clock())
	e.x.ContentType = resp.Header.Get("Content-Type")
	e.retryAfter = resp.Header.Get("Retry-After")
	e.location, e.sent = resp.Header.Get("Location"), out.URL
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		e.rec.ContentEncoding = enc
	}

	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	reads, streamErr := e.pump(ctx, r, w, resp.Body, idle, start)
	e.cut = streamErr != nil
	e.done(start, reads, streamErr)
}

// copyHeader copies the response's end-to-end headers to the client's.
func copyHeader(to, from http.Header) {
	for k, vs := range from {
		if !hopByHop(k, from) {
			to[k] = vs
		}
	}
}

// pump forwards the upstream body to the client read by read, flushing
// each, and keeps each read's arrival time for the record.
func (e *exchange) pump(ctx context.Context, r *http.Request, w http.ResponseWriter, body io.Reader, idle *probe.IdleWatch, start time.Time) ([]record.Read, *record.Error) {
	o := &e.p.o
	c := e.conn
	c.wait(c.rc.SetWriteDeadline)
	werr := c.rc.Flush()
	clientGone := werr != nil
	var reads []record.Read
	b := bufs.Get().(*[readBufferSize]byte)
	defer bufs.Put(b)
	buf := b[:]
	var streamErr *record.Error
	for !clientGone {
		n, rerr := body.Read(buf)
		now := o.Clock() // the upstream arrival time, stamped before anything else
		if n > 0 {
			seen := e.up.read(now) // the stamp's twin, the kernel's receive time of the socket's latest read
			// The client comes first and the bookkeeping after, so nothing
			// the record needs stands between an upstream read and the
			// client. The upstream is silent only while it is read. A write
			// the client is slow to take is its own deadline's to judge, so
			// the watch is pushed past it until the write is done.
			idle.Touch(now.Add(o.IdleTimeout))
			c.wait(c.rc.SetWriteDeadline)
			if _, werr = w.Write(buf[:n]); werr == nil {
				werr = c.rc.Flush()
			}
			clientGone = werr != nil
			idle.Touch(o.Clock())
			reads = e.keep(reads, buf[:n], ms(now.Sub(start)), seen)
			if e.live != nil {
				e.p.live.read(e.live, record.Read{TMS: ms(now.Sub(start)), N: n}, o.MaxFrames) // as keep bounds the record's
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			streamErr = classify(ctx, r, rerr)
			break
		}
	}
	if clientGone && streamErr == nil {
		streamErr = c.gone(ctx, r, werr)
	}
	return reads, streamErr
}

// done notes how forwarding ended.
func (e *exchange) done(start time.Time, reads []record.Read, perr *record.Error) {
	e.start, e.end, e.reads, e.perr = start, e.p.o.Clock(), reads, perr
	e.p.live.update(e.live, func(l *hops.Relayed) { l.Done = true })
}

// keep adds one read to the record's copy of the body, up to MaxBytes.
// The reads past MaxFrames are merged into one, stamped with the last
// one's time. Without a bound, 64 MiB in 1-byte reads would write a
// gigabyte of reads (record.MaxLine). Only a stream in more reads than
// the frame bound loses cadence, past that read. fixtures serve --from
// serves the merged bytes at once, and the record, marked limit, keeps
// the frames before them (finish).
func (e *exchange) keep(reads []record.Read, p []byte, tms float64, seen record.WitnessRead) []record.Read {
	if room := e.p.o.MaxBytes - len(e.resp); len(p) > room {
		p = p[:max(room, 0)]
		e.x.Clipped = true
	}
	if len(p) > 0 && (e.overResponses || !e.p.responses.take(len(p))) {
		// Once a read finds no room, none after it is kept either, so the
		// record keeps a prefix of the body, as --max-bytes does.
		p, e.x.Clipped, e.overResponses = nil, true, true
	}
	if len(p) == 0 {
		return reads
	}
	e.respTaken += len(p)
	e.resp = append(e.resp, p...)
	if n := len(reads); n > e.p.o.MaxFrames {
		reads[n-1] = record.Read{TMS: tms, N: reads[n-1].N + len(p)}
		e.mergedReads, e.merged = true, n-1
		e.up.mergeLast(seen)
		return reads
	}
	e.up.add(seen)
	return append(reads, record.Read{TMS: tms, N: len(p)})
}

// dropResponse gives back what the kept response took of the bound on
// responses in flight, once the record is built from it.
func (e *exchange) dropResponse() {
	e.resp = nil
	e.p.responses.give(e.respTaken)
	e.respTaken = 0
}

// fail records an exchange that got no response and tells the client.
func (e *exchange) fail(w http.ResponseWriter, start time.Time, perr *record.Error) {
	if start.IsZero() {
		start = e.p.o.Clock()
	}
	e.x.Streamed = isStream("", e.body, e.x.Path)
	if perr.Class != record.ErrCanceled {
		http.Error(w, "drip record: upstream: "+perr.Class+": "+perr.Message, http.StatusBadGateway)
	}
	e.done(start, nil, perr)
}

// finish decodes what was kept into frames and derives the record, once
// the client has had the whole response. What only the record needs is
// found here too, not on the way to the upstream and back.
func (e *exchange) finish() {
	rec, o, start, reads, perr := e.rec, &e.p.o, e.start, e.reads, e.perr
	text := e.keepBody()
	rec.PromptID, rec.Model = promptID(e.body), requestModel(text, e.path)
	rec.Target = probe.RedactURL(e.p.upstreamURL(&url.URL{Path: e.path, RawPath: e.rawPath}, "").String())
	e.x.Location = keptLocation(e.location, e.sent, o.Upstream, e.mask)
	if rec.HTTPStatus != 0 { // a response came, as fail judged one that did not
		e.x.Streamed = isStream(e.x.ContentType, text, e.path)
	}
	rec.Start = start
	rec.RunOffsetMS = ms(start.Sub(e.p.start))
	rec.DurationMS = ms(e.end.Sub(start))
	body, reads, encErr := e.decompress(rec.ContentEncoding, e.resp, reads)
	body = e.mask.JSONEscaped(e.mask.BytesCut(body)) // a key echoed, as it came or JSON-escaped, reaches the client but not the record
	if encErr != nil {
		e.x.ContentEncoding = rec.ContentEncoding // still encoded, so served as it came
	}
	e.x.SetResponse(body)
	e.x.Reads = reads
	rec.Witness = e.upstreamWitness(reads)
	switch {
	case !e.x.Streamed:
		rec.Phase, rec.Format = record.PhasePassthrough, "none"
	case rec.HTTPStatus < 200 || rec.HTTPStatus >= 300:
		// No stream came. An error body is not one (a 429's JSON would read
		// as ndjson), and drip run decodes none either. The path names the
		// format the client spoke.
		rec.Format = pathFormat(e.path)
	case encErr != nil:
		// Frames cut from still-encoded bytes would be noise.
		if perr == nil {
			perr = &record.Error{Class: record.ErrDecode, Message: encErr.Error()}
		}
	default:
		if err := e.decodeFrames(body, reads); err != nil && perr == nil {
			perr = err // a decode error, or past --max-frames, though the client got it all
		}
	}
	switch {
	case perr != nil:
	case rec.HTTPStatus >= 300 && rec.HTTPStatus < 400:
		perr = &record.Error{Class: record.ErrRedirect, Status: rec.HTTPStatus, Message: fmt.Sprintf("HTTP %d: a redirect, passed to the client as it came (drip record follows none)", rec.HTTPStatus)}
	case rec.HTTPStatus >= 300:
		perr = probe.HTTPError(rec.HTTPStatus, e.retryAfter, body)
	case e.overResponses || e.x.Clipped || e.mergedReads:
		perr = e.limitError()
	}
	rec.Error = perr
	recordmask.ServerWords(rec, e.mask) // an upstream may echo a key in Retry-After too
	if err := stats.Derive(rec, o.StallMS); err != nil {
		rec.Error, rec.Status = &record.Error{Class: record.ErrDecode, Message: err.Error()}, record.StatusFailed
	}
	if rec.Phase == record.PhasePassthrough && rec.Error == nil {
		// A whole answer that was not a stream has no end marker to wait
		// for, so it is not incomplete.
		rec.Status, rec.Complete = record.StatusComplete, true
	}
}

// limitError says which bound cut what the record keeps of a response
// the client got whole.
func (e *exchange) limitError() *record.Error {
	o := &e.p.o
	msg := fmt.Sprintf("the response came in more than %d reads (--max-frames): the client got all of it, the record keeps the rest as one read, and the frames before it", o.MaxFrames)
	switch {
	case e.overResponses:
		msg = fmt.Sprintf("the responses in flight held %d MiB: the client got all of it, the record keeps the first %d bytes", o.MaxResponsesInFlight>>20, len(e.resp))
	case e.x.Clipped:
		msg = fmt.Sprintf("the response passed %d bytes (--max-bytes): the client got all of it, the record keeps the first %d", o.MaxBytes, o.MaxBytes)
	}
	return &record.Error{Class: record.ErrLimit, Message: msg}
}

// decodeFrames decodes the kept body into the record's frames, keeping
// those of the reads before the ones keep merged, as drip run keeps a
// stream cut at a bound. After it they would have the last read's time,
// one invented gap then none. It masks them and the body.
func (e *exchange) decodeFrames(body []byte, reads []record.Read) *record.Error {
	o := &e.p.o
	err := probe.DecodeReads(adapters.Auto, e.x.ContentType, split(body, reads), times(reads), o.FrameLimit, o.MaxFrames, e.rec)
	if e.mergedReads {
		e.rec.Frames = slices.DeleteFunc(e.rec.Frames, func(f record.Frame) bool { return f.Read >= e.merged })
		if err != nil && err.Class == record.ErrLimit && len(e.rec.Frames) < o.MaxFrames {
			err = nil // the frame bound was reached in the merged reads, which finish names
		}
	}
	e.maskFramesAndBody(body, reads)
	return err
}

// classify names a transport error. It tries the proxy's own timeouts and
// stop first, then a client that went away, then the probe's classes.
func classify(ctx context.Context, r *http.Request, err error) *record.Error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errIdle):
		return &record.Error{Class: record.ErrTimeoutIdle, Message: "no bytes from the upstream within the idle timeout"}
	case errors.Is(cause, errTotal):
		return &record.Error{Class: record.ErrTimeoutTotal, Message: "the exchange exceeded the total timeout"}
	case errors.Is(cause, errStopped):
		return &record.Error{Class: record.ErrCanceled, Message: "drip record stopped"}
	case r.Context().Err() != nil:
		return &record.Error{Class: record.ErrCanceled, Message: "the client closed the connection"}
	}
	return probe.Classify(ctx, err)
}

// decompress decodes a gzip, deflate, br or zstd body for the record, each
// decoded piece stamped with the time of the read that completed it, the
// pieces of one read kept as one read (so no more reads than keep kept).
// The decoded body is kept up to MaxBytes too, as 64 MiB of gzip can
// decode to gigabytes. An encoding drip cannot decode leaves the body as
// it came, with the error, and the client gets it all.
func (e *exchange) decompress(enc string, raw []byte, reads []record.Read) ([]byte, []record.Read, error) {
	if enc == "" || len(raw) == 0 {
		return raw, reads, nil
	}
	rr := &readsReader{b: raw, reads: reads}
	zr, closeZ, err := decoder(enc, rr)
	if err != nil {
		return raw, reads, err
	}
	defer closeZ()
	maxBytes := e.p.o.MaxBytes
	lr := io.LimitReader(zr, int64(maxBytes)+1) // one byte past the bound says it was passed
	var body []byte
	var out []record.Read
	from := -1 // the read the last of out was decoded from
	buf := make([]byte, readBufferSize)
	for {
		n, err := lr.Read(buf)
		if room := maxBytes - len(body); n > room {
			n, e.x.Clipped = room, true
		}
		if n > 0 {
			body = append(body, buf[:n]...)
			if rr.read == from {
				out[len(out)-1].N += n
			} else {
				from = rr.read
				out = append(out, record.Read{TMS: reads[from].TMS, N: n})
			}
		}
		if err == io.EOF {
			// keep merges into the last read only. If it decoded to
			// nothing, no decoded read has its time.
			e.merged = len(out)
			if from == len(reads)-1 {
				e.merged--
			}
			return body, out, nil
		}
		if err != nil {
			return raw, reads, fmt.Errorf("content-encoding %s: %w", enc, err)
		}
	}
}

// decoder reads r through enc's decoder, with what closes it.
func decoder(enc string, r io.Reader) (io.Reader, func(), error) {
	var zr io.Reader
	var err error
	switch strings.ToLower(enc) {
	case "gzip", "x-gzip":
		zr, err = gzip.NewReader(r)
	case "deflate":
		zr, err = zlib.NewReader(r)
	case "br":
		zr = brotli.NewReader(r)
	case "zstd":
		// One goroutine, no read-ahead beyond the block at hand, so a decoded
		// piece keeps the time of the read that completed it.
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, fmt.Errorf("content-encoding %s: %w", enc, err)
		}
		return d, d.Close, nil
	default:
		return nil, nil, fmt.Errorf("content-encoding %s: drip decodes gzip, deflate, br and zstd, so this response is kept as it came, undecoded, without frames (the client got it unchanged)", enc)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("content-encoding %s: %w", enc, err)
	}
	return zr, func() {}, nil
}

// readsReader reads a body kept as reads and knows which read the last byte
// it gave came from. It is an io.ByteReader, so flate reads it byte by byte
// instead of buffering ahead, and a Read ends where an upstream read ended,
// so brotli, which reads in chunks, decodes one read at a time. Decoded
// output lines up with its input.
type readsReader struct {
	b     []byte
	off   int
	reads []record.Read
	read  int // index of the read holding b[off-1]
	end   int // end offset of reads[read] in b
}

func (r *readsReader) ReadByte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, io.EOF
	}
	if r.off == 0 {
		r.end = r.reads[0].N
	}
	for r.off >= r.end && r.read < len(r.reads)-1 {
		r.read++
		r.end += r.reads[r.read].N
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *readsReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c, err := r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		p[n] = c
		n++
		if r.off == r.end {
			break
		}
	}
	return n, nil
}

func split(body []byte, reads []record.Read) [][]byte {
	out := make([][]byte, len(reads))
	off := 0
	for i, r := range reads {
		out[i] = body[off : off+r.N]
		off += r.N
	}
	return out
}

func times(reads []record.Read) []float64 {
	out := make([]float64, len(reads))
	for i, r := range reads {
		out[i] = r.TMS
	}
	return out
}

// streamTypes are the response media types of a stream.
var streamTypes = []string{"text/event-stream", "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines", "application/vnd.amazon.eventstream"}

// isStream says whether an exchange is a stream. Its response's type says
// so, or the request asked for one (a stream that failed before its first
// event still counts as a failed stream).
func isStream(contentType string, body []byte, path string) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && slices.Contains(streamTypes, strings.ToLower(mt)) {
		return true
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	if json.Unmarshal(body, &req) == nil && req.Stream {
		return true
	}
	// Bedrock and Gemini say it in the path.
	return strings.Contains(path, "-stream") || strings.Contains(path, "streamGenerateContent")
}

// pathFormat is the format a request path names, as drip run resolves a
// URL's, else auto.
func pathFormat(path string) string {
	if f := adapters.ForPath(path); f != nil {
		return f.Name
	}
	return adapters.Auto.Name
}

// requestModel finds the model, a "model" in a JSON body or a model in the
// path (/model/NAME/…, /models/NAME:…).
func requestModel(body []byte, path string) string {
	var req struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(body, &req) == nil && req.Model != "" {
		return req.Model
	}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if (p == "model" || p == "models") && i+1 < len(parts) {
			m, _, _ := strings.Cut(parts[i+1], ":")
			return m
		}
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
