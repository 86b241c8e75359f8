package probe

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/recordmask"
	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Clock returns the current time with a monotonic reading. Tests inject one.
type Clock func() time.Time

// Target is what to ask for. It names the endpoint, its format and the
// request.
type Target struct {
	URL     string                            // full endpoint URL
	Method  string                            // empty means POST (drip replay sends the recorded one)
	Format  *adapters.Format                  // request body and decoder
	Request adapters.Request                  // model, prompt, max tokens
	Body    []byte                            // sent as is instead of Format.Body, when set
	Extra   map[string]json.RawMessage        // merged into Format.Body's body (--extra-body)
	Header  http.Header                       // extra headers (-H)
	Sign    func(*http.Request, []byte) error // request signer (SigV4), optional
}

// Options are the probe's knobs. The zero value is usable.
type Options struct {
	Client *http.Client // nil makes a new client per stream, dialing with Dial
	// Dial connects to the server. A nil Dial dials TCP with
	// ConnectTimeout. A test can pass an in-memory network's dialer.
	Dial           DialFunc
	Clock          Clock // nil means time.Now
	ConnectTimeout time.Duration
	IdleTimeout    time.Duration // silence before headers or between reads
	Timeout        time.Duration // whole stream
	StallMS        float64
	FrameLimit     int // longest frame the decoder buffers (adapters)
	// MaxFrames and MaxBytes bound one stream, and 0 means the default.
	// Past either limit the stream is stopped, kept up to the limit, and
	// recorded incomplete with error class "limit".
	MaxFrames   int
	MaxBytes    int64
	Getenv      func(string) string // nil means os.Getenv
	KeepRequest bool
	// NoStreamID leaves the request without record.StreamHeader, which
	// otherwise carries the stream's key to any relay on the way.
	NoStreamID bool
	// FollowRedirects follows a redirect to another origin, without any
	// credential header (see redirectPolicy).
	FollowRedirects bool
	// TLS is the client's TLS setup (--cacert, --cert/--key, -k). A nil
	// TLS uses the system's roots and no client certificate.
	TLS *tls.Config
	// ConnectTurns holds the turns to connect, one for each slot of its
	// buffer. A nil ConnectTurns uses the process-wide MaxConnecting. A
	// test makes its own in its synctest bubble. A wait on the process-wide
	// turns is not durably blocked there, so the bubble's clock would not
	// pass in it.
	ConnectTurns chan struct{}
	// CPU is the run's OS sampler, whose readings give each stream its
	// record.ClientCPU. A nil CPU gives no such figures. Run starts one
	// when it is nil, and so does replay.
	CPU *CPUSampler
	// NoWitness reads connections as net.TCPConn does, without asking the
	// kernel when each read's data arrived (record.Witness). It exists to
	// measure what the witness costs (bench/load -witness=false).
	NoWitness bool
	// wallClock says Clock was nil, so the stream is timed by the wall clock
	// the kernel stamps receive times with. A stream timed by an injected
	// clock is not witnessed.
	wallClock bool
}

// Defaults.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultIdleTimeout    = 60 * time.Second
	DefaultTimeout        = 10 * time.Minute
	DefaultMaxFrames      = 100_000
	DefaultMaxBytes       = 64 << 20
	// keptKeepalives is how many keepalive frames a record keeps. Past it
	// they are only counted (Record.Keepalives), so a flood of them costs
	// nothing while the timeline still shows the usual few.
	keptKeepalives = 100
	// A read returns only what has arrived. At 20 frames/s that is one
	// frame of a few hundred bytes, and through HTTP/1.1 chunking seldom
	// more than the transport's 4 KiB reader holds. The buffer starts small
	// and doubles when a read fills it, so a stream pays for the bursts it
	// has, not for the largest any stream could have. A fixed 16 KiB for
	// every stream was half of its memory in flight (bench/load). A burst
	// past the buffer takes a few reads, microseconds apart.
	readBufferMin     = 1 << 10
	readBufferMax     = 16 << 10
	errorBodyLimit    = 64 << 10
	errorMessageLimit = 300
)

var (
	errIdle  = errors.New("idle timeout")
	errTotal = errors.New("total timeout")
)

// NewClient returns a client fit for streams. It has no overall timeout,
// which would cut long streams. It asks for no compression and keeps many
// idle connections per host.
func NewClient(connectTimeout time.Duration) *http.Client {
	return newClient(Options{ConnectTimeout: connectTimeout})
}

// ClientFor returns the client Run makes for o when o.Client is nil, which
// is NewClient dialing with o.Dial. Several runs that should share connections (a
// sweep's levels) share one.
func ClientFor(o Options) *http.Client { return newClient(o) }

// DialFunc connects to a server. It has the signature of
// http.Transport.DialContext.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// newClient is NewClient dialing with o.Dial, or with TCP when that is nil,
// and using o.TLS.
func newClient(o Options) *http.Client {
	connectTimeout, dial := o.ConnectTimeout, o.Dial
	if connectTimeout <= 0 {
		connectTimeout = DefaultConnectTimeout
	}
	if dial == nil {
		dial = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
	}
	if !o.NoWitness {
		dial = WitnessDial(dial)
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dial,
		TLSHandshakeTimeout: connectTimeout,
		TLSClientConfig:     o.TLS,
		DisableCompression:  true,
		// Each connection keeps its buffers for life. A request is written
		// once, and a read returns what has arrived, at 20 frames/s one
		// frame of a few hundred bytes. Buffers of 1 and 2 KiB instead of
		// the default 4 and 4 save 5 KiB per stream in flight. A longer body
		// or burst takes a few more calls.
		WriteBufferSize:     1 << 10,
		ReadBufferSize:      2 << 10,
		MaxIdleConns:        10000,
		MaxIdleConnsPerHost: 10000,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{Transport: tr}
}

// Event is what the probe tells an observer as a stream unfolds. Observers
// must not block, because the probe calls them on its read path.
//
// The record being filled may be read only during the call, with one
// exception. The probe only ever appends frames, to a slice it starts
// afresh for each stream. So an observer may keep Frames and
// Record.Frames[:len(Record.Frames)] for good. Live views share the
// probe's frames that way instead of copying each one.
type Event struct {
	Seq    int
	Type   EventType
	Frames []record.Frame // the frames one read completed, for EventFrames
	// Record is the record being filled (read only) for EventStart,
	// EventHeaders and EventFrames, and the final one for EventDone.
	Record *record.Record
}

// EventType says what happened.
type EventType uint8

const (
	EventStart   EventType = iota // request about to be sent
	EventHeaders                  // response headers arrived
	EventFrames                   // a read completed frames
	EventDone                     // the record is final
)

// Stream sends one streaming request and records it. It never returns an
// error, because every failure is data in the record. observe may be nil.
func Stream(ctx context.Context, t Target, o Options, rec *record.Record, observe func(Event)) *record.Record {
	o = o.withDefaults()
	if observe == nil {
		observe = func(Event) {}
	}
	begin(rec, t)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, cancelTotal := context.WithTimeoutCause(ctx, o.Timeout, errTotal)
	defer cancelTotal()
	streamKey := ""
	if !o.NoStreamID {
		streamKey = rec.StreamKey()
	}
	req, body, e := buildRequest(ctx, t, o, streamKey)
	if e != nil {
		return finish(rec, o, time.Time{}, e, nil, observe)
	}
	// What the server says back is masked for the credentials this request
	// carries as sent. An error quoting the key then reaches no record or
	// output, and neither does a kept prompt that quotes it.
	mask := redact.NewMasker(RequestSecrets(req))
	if o.KeepRequest {
		rec.Request = append([]byte(nil), mask.Bytes(body)...)
	}
	release, err := connectTurn(req, o.Clock, o.ConnectTurns, rec)
	if err != nil {
		return finish(rec, o, time.Time{}, classify(ctx, err), mask, observe)
	}
	defer release()

	// The idle watch covers the wait for headers and every silence between
	// reads. It cancels the request with a cause we can classify.
	idle := WatchIdle(o.IdleTimeout, o.Clock, func() { cancel(errIdle) })
	defer idle.Stop()

	cpu0 := o.CPU.mark()
	var ws *streamWitness
	end := func(start time.Time, e *record.Error) *record.Record {
		rec.ClientCPU = o.CPU.since(cpu0)
		ws.end(o.Clock().Sub(start))
		return finish(rec, o, start, e, mask, observe)
	}
	start, resp, ws, err := send(req, release, o, rec, observe, idle)
	if err != nil {
		return end(start, classify(ctx, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return end(start, statusError(resp, t))
	}
	fr := newFrameRecorder(t.Format, o.FrameLimit, o.MaxFrames, rec, observe)
	fr.text, fr.witness = recordmask.NewFrameText(mask), ws
	return end(start, decodeBody(ctx, resp, t.Format, fr, o, start, idle))
}

// statusError is the error of a response with a status of 300 or more,
// with the server's words from its body and, for a 404, a hint at the
// endpoint t may have meant.
func statusError(resp *http.Response, t Target) *record.Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	e := HTTPError(resp.StatusCode, resp.Header.Get("Retry-After"), body)
	if h := EndpointHint(t.URL, t.Format); resp.StatusCode == http.StatusNotFound && h != "" {
		e.Message += " (" + h + ")"
	}
	return e
}

// send sends req for rec, timing its connection and its headers from
// start, the moment before it went. It ends the stream's turn to connect
// (release) when the transport has a connection, and starts the stream's
// kernel witness on it (nil without one).
func send(req *http.Request, release func(), o Options, rec *record.Record, observe func(Event), idle *IdleWatch) (time.Time, *http.Response, *streamWitness, error) {
	conn := &connTimer{release: release}
	req = conn.trace(req)
	rec.StartUnixNS = time.Now().UnixNano()
	observe(Event{Seq: rec.Seq, Type: EventStart, Record: rec})
	start := o.Clock()
	rec.Start = start
	client := *o.Client // this stream's redirect policy
	client.CheckRedirect = (&redirectPolicy{rec: rec, follow: o.FollowRedirects}).check
	resp, err := client.Do(req)
	rec.ConnectMS = conn.connectMS()
	if err != nil {
		if resp != nil { // a refused redirect, so the server answered
			rec.HTTPStatus = resp.StatusCode
		}
		return start, nil, nil, err
	}
	headers := o.Clock()
	rec.HeadersMS = new(ms(headers.Sub(start)))
	rec.HTTPStatus = resp.StatusCode
	idle.Touch(headers)
	var ws *streamWitness
	if o.wallClock {
		ws = newStreamWitness(conn.conn, rec, *rec.HeadersMS, o.StallMS)
	}
	observe(Event{Seq: rec.Seq, Type: EventHeaders, Record: rec})
	return start, resp, ws, nil
}

// notStream returns e, the error that ended a body whose format det
// picked. When e is nil or a decode error and det found the body was no
// stream at all (adapters.Detector.NotStream), it returns a not_stream
// error instead, whatever a stream's decoder made of the body. It applies
// only under auto, because an explicit --format takes any body a frame
// came from.
func notStream(det *adapters.Detector, e *record.Error) *record.Error {
	if e != nil && e.Class != record.ErrDecode {
		return e
	}
	if why := det.NotStream(); why != "" {
		return &record.Error{Class: record.ErrNotStream, Message: why}
	}
	return e
}

// noFrames returns e, the error that ended rec's body. When e is nil or a
// decode error, no frame came from the body and the body is a document
// (adapters.NotStreamBody), it returns a not_stream error instead,
// whichever decoder read it. head is the body's start.
func noFrames(rec *record.Record, e *record.Error, contentType string, head []byte) *record.Error {
	if e != nil && e.Class != record.ErrDecode || len(rec.Frames) > 0 || rec.Keepalives > 0 {
		return e
	}
	if why := adapters.NotStreamBody(contentType, head); why != "" {
		return &record.Error{Class: record.ErrNotStream, Message: why}
	}
	return e
}

// decodeBody reads a 2xx response's body through fr to its end, and
// returns what ended it. Under auto the response's type and first bytes
// pick the decoder, and a body that is no stream says so (notStream).
// Under any format, a body no frame came from says so (noFrames). A stream
// that fails to decode as the format asked for says which format it looks
// like (formatMismatch).
func decodeBody(ctx context.Context, resp *http.Response, f *adapters.Format, fr *frameRecorder, o Options, start time.Time, idle *IdleWatch) *record.Error {
	contentType := resp.Header.Get("Content-Type")
	head := &formatHead{r: decompressed(resp, fr.rec)}
	if f == adapters.Auto {
		det := adapters.NewDetector(contentType, o.FrameLimit)
		fr.det, fr.dec = det, det
		e := notStream(det, readBody(ctx, head, fr, o, start, idle))
		return noFrames(fr.rec, e, contentType, head.head)
	}
	e := noFrames(fr.rec, readBody(ctx, head, fr, o, start, idle), contentType, head.head)
	return formatMismatch(e, f, contentType, head.head)
}

// begin sets what rec says of t, and clears what a stream fills in.
func begin(rec *record.Record, t Target) {
	rec.V = record.RecordVersion
	rec.Target = RedactURL(t.URL)
	rec.Format = t.Format.Name
	rec.Model = t.Request.Model
	rec.Frames = nil // never reuse frames an observer may keep (Event)
	rec.Server, rec.Redirects, rec.Keepalives, rec.ConnectWaitMS, rec.ConnectMS = nil, nil, 0, nil, nil
	rec.Witness = nil
}

// buildRequest builds t's request and its body, signed when t says so. A
// request that cannot be built or signed is class request, since nothing
// was sent.
// A streamKey is sent in record.StreamHeader, before signing (a signer may
// cover every header).
func buildRequest(ctx context.Context, t Target, o Options, streamKey string) (*http.Request, []byte, *record.Error) {
	body := t.Body
	if body == nil {
		var err error
		if body, err = t.Format.Body(t.Request); err == nil && len(t.Extra) > 0 {
			body, err = MergeBody(body, t.Extra)
		}
		if err != nil {
			return nil, nil, &record.Error{Class: record.ErrRequest, Message: "building the request body: " + err.Error()}
		}
	}
	method := t.Method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, t.URL, bytes.NewReader(body))
	if err != nil {
		// The message would quote the URL, which may carry a key.
		return nil, nil, &record.Error{Class: record.ErrRequest, Message: "bad URL: want http(s)://host[:port][/path]"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream, application/x-ndjson, application/vnd.amazon.eventstream, */*")
	req.Header.Set("Accept-Encoding", "identity")
	for k, vs := range t.Header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	if streamKey != "" {
		req.Header.Set(record.StreamHeader, streamKey)
	}
	if t.Format.Auth != nil {
		t.Format.Auth(req.Header, o.Getenv)
	}
	if t.Sign != nil {
		if err := t.Sign(req, body); err != nil {
			return nil, nil, &record.Error{Class: record.ErrRequest, Message: "signing the request: " + err.Error()}
		}
	}
	return req, body, nil
}

// decompressed returns resp's body to decode. A compressed stream cannot
// be frame-timed, because its reads are the compressor's blocks. rec notes
// the encoding, and gzip is still decoded for content. A fault in the gzip
// stream itself (corrupt, cut short while the connection ended cleanly,
// not gzip at all) becomes a decode error that says so (gzipError), not
// the transport's reset. The transport's own errors come through as they
// are.
func decompressed(resp *http.Response, rec *record.Record) io.Reader {
	enc := resp.Header.Get("Content-Encoding")
	if enc == "" || strings.EqualFold(enc, "identity") {
		return resp.Body
	}
	rec.ContentEncoding = enc
	if !strings.EqualFold(enc, "gzip") {
		return resp.Body
	}
	return &gunzipped{body: transportBody{r: resp.Body}}
}

// transportBody is a response body that remembers the last error its read
// returned, other than its end. That error is the transport's.
type transportBody struct {
	r   io.Reader
	err error
}

func (b *transportBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// blame is err, from a gzip reader over b, as the transport's when b's
// read failed, else as the gzip stream's own (a gzipError).
func (b *transportBody) blame(err error) error {
	if err == nil || err == io.EOF || b.err != nil {
		return err
	}
	return &gzipError{err}
}

// gunzipped reads the gzip header on its first Read, so a body that is
// not gzip fails there, as one corrupt further on does.
type gunzipped struct {
	gz   *gzip.Reader
	body transportBody
}

func (g *gunzipped) Read(p []byte) (int, error) {
	if g.gz == nil {
		gz, err := gzip.NewReader(&g.body)
		if err != nil {
			return 0, g.body.blame(err)
		}
		g.gz = gz
	}
	n, err := g.gz.Read(p)
	return n, g.body.blame(err)
}

// gzipError is a gzip body that does not decode, which is the server's
// fault.
type gzipError struct{ err error }

func (e *gzipError) Error() string {
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		return "the gzip-compressed body ended inside its compressed stream (cut short)"
	}
	return "the gzip-compressed body does not decode: " + e.err.Error()
}

// readBody reads the body to its end through fr, stamping each read first.
// It returns nil for a clean end, or the error that ended the stream.
func readBody(ctx context.Context, r io.Reader, fr *frameRecorder, o Options, start time.Time, idle *IdleWatch) *record.Error {
	buf := make([]byte, readBufferMin)
	var total int64
	for {
		n, rerr := r.Read(buf)
		now := o.Clock() // stamp first, so nothing stands between the read and its time
		if n > 0 {
			idle.Touch(now)
			tms := ms(now.Sub(start))
			if fr.rec.FirstByteMS == nil {
				fr.rec.FirstByteMS = new(tms)
			}
			over := total+int64(n) > o.MaxBytes
			if over {
				n = int(o.MaxBytes - total) // keep the stream up to the limit
			}
			total += int64(n)
			if err := fr.feed(buf[:n], tms, now); err != nil {
				return &record.Error{Class: record.ErrDecode, Message: err.Error()}
			}
			if over {
				return &record.Error{Class: record.ErrLimit, Message: fmt.Sprintf("stopped after %d bytes (--max-bytes)", o.MaxBytes)}
			}
			if fr.full {
				return frameLimitError(o.MaxFrames)
			}
			if n == len(buf) && len(buf) < readBufferMax {
				buf = make([]byte, 2*len(buf)) // more was waiting, so read it in fewer calls
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil { // gzErr escapes, so it lives only here and a read's path allocates nothing
			var gzErr *gzipError
			if errors.As(rerr, &gzErr) {
				return &record.Error{Class: record.ErrDecode, Message: gzErr.Error()}
			}
			return classify(ctx, rerr)
		}
	}
	if err := fr.close(ms(o.Clock().Sub(start))); err != nil {
		return &record.Error{Class: record.ErrDecode, Message: err.Error()}
	}
	if fr.full {
		return frameLimitError(o.MaxFrames)
	}
	return nil
}

// frameRecorder decodes reads into a record's frames. It is the probe's hot
// path, shared by live streams and replays.
type frameRecorder struct {
	dec       adapters.Decoder
	rec       *record.Record
	observe   func(Event)
	frames    []adapters.Frame
	read      int
	det       *adapters.Detector    // picking the decoder, until it has
	maxFrames int                   // 0 means no bound
	full      bool                  // a frame past maxFrames was dropped
	text      *recordmask.FrameText // masks the request's credentials in each frame's text and fields, or nil if it has none
	witness   *streamWitness        // the kernel's account of each read, or nil
}

func newFrameRecorder(f *adapters.Format, frameLimit, maxFrames int, rec *record.Record, observe func(Event)) *frameRecorder {
	return &frameRecorder{dec: f.NewDecoder(frameLimit), rec: rec, observe: observe, maxFrames: maxFrames}
}

// feed decodes one read that returned at now, tms from the start.
func (fr *frameRecorder) feed(p []byte, tms float64, now time.Time) error {
	var err error
	fr.frames, err = fr.dec.Feed(fr.frames[:0], p)
	first := len(fr.rec.Frames)
	fr.add(tms)
	if fr.witness != nil {
		fr.witness.read(now, tms, fr.rec.Frames[first:])
	}
	fr.read++
	return err
}

// close ends the stream at tms. A stream cut inside a frame is marked
// truncated, which is not a decode error.
func (fr *frameRecorder) close(tms float64) error {
	var err error
	fr.frames, err = fr.dec.Close(fr.frames[:0])
	fr.add(tms)
	if errors.Is(err, adapters.ErrTruncated) {
		fr.rec.Truncated = true
		return nil
	}
	return err
}

func (fr *frameRecorder) add(tms float64) {
	if fr.det != nil && fr.det.Format() != nil {
		fr.rec.Format = fr.det.Format().Name // before anyone sees a frame
		fr.det = nil
	}
	fr.frames = fr.bound(fr.frames)
	if len(fr.frames) == 0 {
		return
	}
	first := len(fr.rec.Frames)
	fr.rec.Frames = appendFrames(fr.rec.Frames, fr.frames, tms, fr.read)
	n := len(fr.rec.Frames)
	for i := first; i < n; i++ {
		if fr.text != nil { // the request carried a credential
			fr.text.Mask(&fr.rec.Frames[i]) // before anyone sees it
		}
		addServer(fr.rec, fr.rec.Frames[i].Server)
	}
	fr.observe(Event{Seq: fr.rec.Seq, Type: EventFrames, Frames: fr.rec.Frames[first:n:n], Record: fr.rec})
}

// bound drops, in place, the keepalives past keptKeepalives (counting every
// one) and the frames past maxFrames (setting full).
func (fr *frameRecorder) bound(frames []adapters.Frame) []adapters.Frame {
	kept := frames[:0]
	for _, f := range frames {
		if f.Kind == adapters.KindPing {
			fr.rec.Keepalives++
			if fr.rec.Keepalives > keptKeepalives {
				continue
			}
		}
		if fr.maxFrames > 0 && len(fr.rec.Frames)+len(kept) >= fr.maxFrames {
			fr.full = true
			break
		}
		kept = append(kept, f)
	}
	return kept
}

// Replay decodes reads as if they had come from a connection, read i at
// times[i] ms, and derives the record. It is the probe's path without the
// socket, used for recorded streams, tests and measuring drip's own cost.
func Replay(f *adapters.Format, reads [][]byte, times []float64, stallMS float64, rec *record.Record) (*record.Record, error) {
	if err := DecodeReads(f, "", reads, times, 0, 0, rec); err != nil {
		return rec, errors.New(err.Message)
	}
	if len(times) > 0 {
		rec.DurationMS = times[len(times)-1]
	}
	return rec, stats.Derive(rec, stallMS)
}

// DecodeReads decodes a response body that arrived as reads (read i at
// times[i] ms from the record's start) into rec's frames and first byte
// time. With adapters.Auto the Content-Type and first bytes pick the
// format. frameLimit bounds one frame, and maxFrames bounds the frames
// kept (0 means no bound). Past maxFrames the result is a limit error. The
// caller derives the record.
func DecodeReads(f *adapters.Format, contentType string, reads [][]byte, times []float64, frameLimit, maxFrames int, rec *record.Record) *record.Error {
	rec.Format = f.Name
	rec.Frames = rec.Frames[:0]
	rec.Server, rec.Keepalives = nil, 0
	fr := newFrameRecorder(f, frameLimit, maxFrames, rec, func(Event) {})
	if f == adapters.Auto {
		fr.det = adapters.NewDetector(contentType, frameLimit)
		fr.dec = fr.det
	}
	end := 0.0
	for d := range ReadFrames(fr.dec, reads) {
		closing := d.Read == len(reads)
		if !closing {
			if rec.FirstByteMS == nil && len(reads[d.Read]) > 0 {
				rec.FirstByteMS = new(times[d.Read])
			}
			end = times[d.Read]
		}
		fr.frames, fr.read = d.Frames, d.Read
		fr.add(end)
		switch {
		case closing && errors.Is(d.Err, adapters.ErrTruncated): // cut inside a frame, which is not a decode error
			rec.Truncated = true
		case d.Err != nil:
			return &record.Error{Class: record.ErrDecode, Message: d.Err.Error()}
		}
		if fr.full {
			return frameLimitError(maxFrames)
		}
	}
	return nil
}

// DecodedRead is what a decoder made of one read. It holds the frames it
// completed (the decoder's output, reused for the next read) and the error
// its decode ended with. Read is the read's index, or len(reads) for the end
// of the stream (the decoder's Close).
type DecodedRead struct {
	Read   int
	Frames []adapters.Frame
	Err    error
}

// ReadFrames decodes reads in turn with dec, then closes it, yielding
// what each made. It stops after one that ended with an error. Close's
// error is adapters.ErrTruncated for a stream cut inside a frame. It is the one
// decode loop of a recorded body, for its record (DecodeReads) and for
// walking its frames again (drip record's masking of a kept body).
func ReadFrames(dec adapters.Decoder, reads [][]byte) iter.Seq[DecodedRead] {
	return func(yield func(DecodedRead) bool) {
		var frames []adapters.Frame
		var err error
		for i, p := range reads {
			frames, err = dec.Feed(frames[:0], p)
			if !yield(DecodedRead{Read: i, Frames: frames, Err: err}) || err != nil {
				return
			}
		}
		frames, err = dec.Close(frames[:0])
		yield(DecodedRead{Read: len(reads), Frames: frames, Err: err})
	}
}

// addServer copies the numbers a frame's server map carries into the
// record's server object (the last report wins), where summaries find them.
func addServer(rec *record.Record, m map[string]json.RawMessage) {
	for k, raw := range m {
		var v float64
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		if rec.Server == nil {
			rec.Server = map[string]any{}
		}
		rec.Server[k] = v
	}
}

func appendFrames(dst []record.Frame, frames []adapters.Frame, tms float64, read int) []record.Frame {
	for i := range frames {
		f := &frames[i]
		pf := record.Frame{TMS: tms, Read: read, Bytes: f.Bytes, Kind: f.Kind, Text: f.Text, Tokens: f.Tokens, Server: f.Server}
		if f.Kind == adapters.KindContent {
			pf.Channel = f.Channel
		}
		if f.HasUsage {
			pf.Usage = new(f.OutputTokens)
		}
		dst = append(dst, pf)
	}
	return dst
}

// finish ends rec with e, its words masked by mask. A nil mask masks
// nothing.
func finish(rec *record.Record, o Options, start time.Time, e *record.Error, mask *redact.Masker, observe func(Event)) *record.Record {
	if start.IsZero() {
		start = o.Clock()
		rec.Start = start
	}
	rec.DurationMS = ms(o.Clock().Sub(start))
	rec.Error = e
	if err := stats.Derive(rec, o.StallMS); err != nil {
		// A clock that ran backwards is drip's fault. Say so in the record.
		rec.Error = &record.Error{Class: record.ErrDecode, Message: err.Error()}
		rec.Status = record.StatusFailed
	}
	recordmask.ServerWords(rec, mask)
	observe(Event{Seq: rec.Seq, Type: EventDone, Record: rec})
	return rec
}

func (o Options) withDefaults() Options {
	// Run takes its defaults before each stream's, so a clock it set is
	// still the wall clock.
	o.wallClock = o.wallClock || o.Clock == nil
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Client == nil {
		o.Client = newClient(o)
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StallMS <= 0 {
		o.StallMS = stats.DefaultStall
	}
	if o.MaxFrames <= 0 {
		o.MaxFrames = DefaultMaxFrames
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return o
}

func frameLimitError(n int) *record.Error {
	return &record.Error{Class: record.ErrLimit, Message: fmt.Sprintf("stopped after %d frames (--max-frames)", n)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Classify maps a transport error to an error class (docs/records.md, Error
// classes). It reads the cause of ctx's cancellation first, as classify
// does.
func Classify(ctx context.Context, err error) *record.Error { return classify(ctx, err) }

// classify maps a transport error to an error class (docs/records.md, Error classes). Messages come from
// the innermost error so that URLs (which may carry secrets) are not copied.
func classify(ctx context.Context, err error) *record.Error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errIdle):
		return &record.Error{Class: record.ErrTimeoutIdle, Message: "no bytes within the idle timeout"}
	case errors.Is(cause, errTotal):
		return &record.Error{Class: record.ErrTimeoutTotal, Message: "the stream exceeded the total timeout"}
	case errors.Is(cause, context.Canceled) || errors.Is(err, context.Canceled):
		msg := "canceled"
		if cause != context.Canceled && errors.Is(cause, context.Canceled) {
			// drip canceled it for a reason of its own, such as drip replay
			// hanging up where the recorded client did. Use the cause's own
			// words.
			msg = cause.Error()
		}
		return &record.Error{Class: record.ErrCanceled, Message: msg}
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	msg := err.Error()
	var redir *redirectError
	if errors.As(err, &redir) {
		return &record.Error{Class: record.ErrRedirect, Message: msg, Status: redir.status}
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	var unknownAuth x509.UnknownAuthorityError
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr):
		return &record.Error{Class: record.ErrDNS, Message: msg}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &record.Error{Class: record.ErrRefused, Message: msg}
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &alert), errors.As(err, &unknownAuth):
		return &record.Error{Class: record.ErrTLS, Message: msg}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &record.Error{Class: record.ErrTimeoutIdle, Message: "connect timed out: " + msg}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &record.Error{Class: record.ErrReset, Message: "connection closed in the middle of the body"}
	}
	return &record.Error{Class: record.ErrReset, Message: msg}
}

// HTTPError classifies a non-2xx response from its status and the start
// of its body, whose error message it keeps, cut short.
func HTTPError(status int, retryAfter string, body []byte) *record.Error {
	e := &record.Error{Status: status, RetryAfter: retryAfter}
	switch {
	case status == http.StatusTooManyRequests:
		e.Class = record.ErrHTTP429
	case status >= 500:
		e.Class = record.ErrHTTP5xx
	default:
		e.Class = record.ErrHTTP4xx
	}
	msg := textfmt.CutBytes(strings.TrimSpace(adapters.ErrorMessage(body)), errorMessageLimit)
	e.Message = fmt.Sprintf("HTTP %d", status)
	if msg != "" {
		e.Message += ": " + msg
	}
	return e
}

// RedactURL drops credentials from a URL. It removes the user info and
// the values of secret query parameters, and it prints a URL that does
// not parse, or an opaque one, as a note in parentheses instead.
func RedactURL(raw string) string { return redact.URL(raw) }
