// Package replay sends the requests of a recording (drip record) again,
// against another server, and records the replayed streams. By default it
// keeps the recorded order and spacing. A closed loop (Concurrency) or an
// open one (Rate) can shape the load instead. Comparing the replay with the
// recording is package compare's work, with the recording as the baseline.
package replay

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Options say where and how to replay.
type Options struct {
	Against string      // base URL, to whose path each recorded path is joined
	Header  http.Header // extra headers (-H), over the recorded ones
	Sign    func(*http.Request, []byte) error
	Probe   probe.Options
	// Concurrency > 0 keeps that many in flight (closed loop). Rate > 0
	// starts that many per second (open loop). With neither, the recorded
	// order and spacing hold.
	Concurrency int
	Rate        float64
	// Duration > 0 cycles through the recording until it has passed.
	// Otherwise each recorded stream is sent once.
	Duration time.Duration
	RunID    string
	Progress *probe.Progress // updated live when set
	// AllowMethods are the methods replayed besides POST and GET
	// (--allow-method), upper case.
	AllowMethods []string
}

// Methods are the request methods replayed without --allow-method. POST
// is what every streaming API drip knows answers. GET is safe (RFC 9110
// says it changes nothing on the server) and is how a server-sent events
// endpoint is read. A recording is a file anyone can hand over, and a
// crafted one with "DELETE /v1/files/…" would otherwise be sent with the
// environment's key.
var Methods = []string{http.MethodPost, http.MethodGet}

// Streams returns the records of a recording that can be replayed, the
// Recorded streams whose request body drip record kept, sent with one of
// Methods or allow.
func Streams(recs []*record.Record, allow ...string) []*record.Record {
	return slices.DeleteFunc(Recorded(recs), func(r *record.Record) bool {
		return r.Exchange.BodyOmitted != "" || !replayedMethod(r.Exchange.Method, allow)
	})
}

// replayedMethod says a recorded method is replayed, as one of Methods or
// allow ("" is probe's POST).
func replayedMethod(m string, allow []string) bool {
	m = strings.ToUpper(m)
	return m == "" || slices.Contains(Methods, m) || slices.Contains(allow, m)
}

// Recorded returns the streams drip record saw (an exchange, not
// passthrough), in the order they started.
func Recorded(recs []*record.Record) []*record.Record {
	var out []*record.Record
	for _, r := range recs {
		if isStream(r) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *record.Record) int {
		switch {
		case a.RunOffsetMS < b.RunOffsetMS:
			return -1
		case a.RunOffsetMS > b.RunOffsetMS:
			return 1
		}
		return 0
	})
	return out
}

func isStream(r *record.Record) bool {
	return r.Exchange != nil && r.Exchange.Streamed && r.Phase != record.PhasePassthrough
}

// NotReplayed says in words which records of a recording Streams leaves
// out and why, or "" when it leaves out none.
func NotReplayed(recs []*record.Record, allow ...string) string {
	var parts []string
	var runs, passthrough, omitted int
	methods := map[string]int{}
	for _, r := range recs {
		switch {
		case r.Exchange == nil:
			runs++
		case !isStream(r):
			passthrough++
		case r.Exchange.BodyOmitted != "":
			omitted++
		case !replayedMethod(r.Exchange.Method, allow):
			methods[strings.ToUpper(r.Exchange.Method)]++
		}
	}
	if runs > 0 {
		parts = append(parts, stats.Count(runs, "record")+" without an exchange (not made by drip record)")
	}
	if passthrough > 0 {
		parts = append(parts, stats.Count(passthrough, "exchange")+" that did not stream")
	}
	if omitted > 0 {
		parts = append(parts, stats.Count(omitted, "stream")+" whose request body was too long to keep")
	}
	for _, m := range slices.Sorted(maps.Keys(methods)) {
		parts = append(parts, fmt.Sprintf("%s sent with %s (only %s are replayed: --allow-method %s sends %s)",
			stats.Count(methods[m], "stream"), m, strings.Join(Methods, " and "), m, pronoun(methods[m])))
	}
	return strings.Join(parts, ", ")
}

// MaskedBodies says in words how many of streams send a request body
// drip record masked (exchange.removed "body …", for a secret member or
// URL query Redacted, or the request's own key starred). The server gets
// the mask where the recording's client sent a secret, and may refuse it.
// "" when none does.
func MaskedBodies(streams []*record.Record) string {
	n := 0
	for _, r := range streams {
		if slices.ContainsFunc(r.Exchange.Removed, func(s string) bool { return strings.HasPrefix(s, "body ") }) {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return "sending the request body as drip record masked it (REDACTED, or * for each byte, where a credential stood; exchange.removed names them) for " + stats.Count(n, "stream")
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// Policy says in words how the replay was paced, for the report.
func (o Options) Policy() string {
	s := "the recorded order and spacing"
	switch {
	case o.Concurrency > 0:
		s = "a closed loop of " + itoa(o.Concurrency) + " in flight"
	case o.Rate > 0:
		s = "an open loop of " + ftoa(o.Rate) + " per second"
	}
	if o.Duration > 0 {
		s += ", cycling through the recording for " + o.Duration.String()
	}
	return s
}

// Check reports what in o cannot be replayed.
func (o Options) Check() error {
	_, err := probe.ParseHTTPURL(o.Against)
	switch {
	case err != nil:
		return errors.New("--against " + err.Error())
	case o.Concurrency > 0 && o.Rate > 0:
		return errors.New("--concurrency is the closed loop and --rate the open one: pick one")
	case o.Concurrency < 0:
		return errors.New("--concurrency " + itoa(o.Concurrency) + ": must not be negative")
	case o.Rate < 0:
		return errors.New("--rate " + ftoa(o.Rate) + ": must not be negative")
	case o.Duration < 0:
		return errors.New("--duration " + o.Duration.String() + ": must not be negative")
	}
	for _, m := range o.AllowMethods {
		if m == "" || m != strings.ToUpper(m) || strings.ContainsFunc(m, func(r rune) bool { return r < 'A' || r > 'Z' }) {
			return fmt.Errorf("--allow-method %q: want a method name such as PUT", m)
		}
	}
	if p := o.Probe; p.Timeout <= 0 || p.IdleTimeout <= 0 || p.ConnectTimeout <= 0 {
		return errors.New("--timeout, --idle-timeout and --connect-timeout must be positive")
	}
	return nil
}

// Replayable is the streams of a recording that are sent again (Streams),
// or why none can be. Either there is no stream to send, or the Duration
// cannot be kept on them (CheckSchedule).
func (o Options) Replayable(recs []*record.Record) ([]*record.Record, error) {
	streams := Streams(recs, o.AllowMethods...)
	if len(streams) == 0 {
		return nil, fmt.Errorf("no recorded stream to replay, only %s", NotReplayed(recs, o.AllowMethods...))
	}
	return streams, o.CheckSchedule(streams)
}

// CheckSchedule reports a Duration that cannot be kept on streams (from
// Streams). The recorded spacing repeats once per span of the recording,
// and a recording that spans 0 ms (its streams all start at once, or its
// one stream lasted 0 ms) never reaches the Duration. Run would send each
// stream once, while Rate or Concurrency cycle through it instead.
func (o Options) CheckSchedule(streams []*record.Record) error {
	if o.Duration <= 0 || o.Rate > 0 || o.Concurrency > 0 || len(streams) == 0 || span(streams) > 0 {
		return nil
	}
	return fmt.Errorf("--duration %s repeats the recorded spacing, but the recording (%s) spans 0 ms: give --rate or --concurrency to cycle through it",
		o.Duration, stats.Count(len(streams), "stream"))
}

// Run replays streams (from Streams) and hands every replayed record to
// sink, one call at a time, as each ends. When ctx is done it stops
// sending, and streams in flight end as canceled. Paced by a schedule (the
// recorded one, or Rate), it returns how closely it kept to it. That is
// the lag of every arrival and those not admitted over
// probe.DefaultMaxInflight.
func Run(ctx context.Context, streams []*record.Record, o Options, sink func(*record.Record)) stats.RunStats {
	if len(streams) == 0 {
		return stats.RunStats{}
	}
	r := &runner{o: o, streams: streams, sink: sink}
	r.probe = o.Probe
	if r.probe.Client == nil && r.probe.Dial == nil { // one client, its connections reused
		r.probe.Client = probe.NewClient(o.Probe.ConnectTimeout)
	}
	if r.probe.Clock == nil {
		r.probe.Clock = time.Now
	}
	if r.probe.CPU == nil { // one OS sampler for every stream
		r.probe.CPU = probe.StartCPUSampler()
		defer r.probe.CPU.Stop()
	}
	if r.o.RunID == "" {
		r.o.RunID = probe.NewRunID()
	}
	if r.o.Progress == nil {
		r.o.Progress = &probe.Progress{}
	}
	r.start = r.probe.Clock()
	if o.Concurrency > 0 {
		r.closed(ctx)
		return stats.RunStats{}
	}
	return r.open(ctx)
}

type runner struct {
	o       Options
	probe   probe.Options
	streams []*record.Record
	sink    func(*record.Record)
	mu      sync.Mutex
	start   time.Time
	seq     atomic.Int64
}

// next returns the i-th stream to send and whether there is one. Each is
// sent once, or round and round while the duration lasts.
func (r *runner) next(i int) (*record.Record, bool) {
	if r.o.Duration > 0 {
		if r.probe.Clock().Sub(r.start) >= r.o.Duration {
			return nil, false
		}
		return r.streams[i%len(r.streams)], true
	}
	if i >= len(r.streams) {
		return nil, false
	}
	return r.streams[i], true
}

// closed keeps Concurrency streams in flight.
func (r *runner) closed(ctx context.Context) {
	var i atomic.Int64
	pg := r.o.Progress
	probe.ClosedLoop(ctx, r.o.Concurrency, func() bool {
		rec, ok := r.next(int(i.Add(1) - 1))
		if !ok {
			return false
		}
		pg.Attempted.Add(1)
		pg.Admitted.Add(1)
		pg.InFlight.Add(1)
		r.send(ctx, rec, nil)
		pg.InFlight.Add(-1)
		return true
	})
}

// open starts each stream at its time (pacer). A late start is sent at
// once, and its lag stays visible in the record's intended start.
func (r *runner) open(ctx context.Context) stats.RunStats {
	l := probe.OpenLoop{Pacer: r.pacer(), Limit: probe.DefaultMaxInflight, Clock: r.probe.Clock, Progress: r.o.Progress}
	return l.Run(ctx, r.start, func(i int) func(time.Duration) {
		rec := r.streams[i%len(r.streams)]
		return func(at time.Duration) {
			intended := float64(at) / float64(time.Millisecond)
			r.send(ctx, rec, &intended)
		}
	})
}

// pacer is the replay's schedule. It starts a stream every 1/Rate, or each
// stream at its recorded offset from the first stream's, round after round
// while Duration lasts. Without Duration each stream goes once.
func (r *runner) pacer() probe.Pacer {
	n := len(r.streams)
	first, span := r.streams[0].RunOffsetMS, span(r.streams)
	at := probe.Offsets(func(i uint64) time.Duration {
		round := time.Duration(i/uint64(n)) * span
		return round + time.Duration((r.streams[i%uint64(n)].RunOffsetMS-first)*float64(time.Millisecond))
	})
	if r.o.Rate > 0 {
		at = probe.ArrivalPacer(probe.ArrivalConstant, r.o.Rate, 0)
	}
	limit := n // each once, unless there is a schedule to cycle through
	if r.o.Duration > 0 && (r.o.Rate > 0 || span > 0) {
		limit = 0
	}
	return probe.Bounded(at, limit, r.o.Duration)
}

func span(streams []*record.Record) time.Duration {
	n := len(streams)
	d := streams[n-1].RunOffsetMS - streams[0].RunOffsetMS
	if n > 1 {
		d += d / float64(n-1)
	} else {
		d = streams[0].DurationMS
	}
	return time.Duration(d * float64(time.Millisecond))
}

// send replays one recorded stream and hands its record on.
func (r *runner) send(ctx context.Context, orig *record.Record, intended *float64) {
	rec := &record.Record{
		RunID: r.o.RunID, Seq: int(r.seq.Add(1) - 1), Phase: record.PhaseMeasure,
		PromptID: orig.PromptID, IntendedStartMS: intended,
	}
	sctx, observe, stop := hangUpAsRecorded(ctx, orig)
	defer stop()
	t, o := r.target(orig), r.probe
	if o.StallMS <= 0 { // the stream's recorded threshold (drip record --stall), so its stalls compare
		o.StallMS = orig.StallMS
	}
	watch := watchFormat(&t, &o)
	probe.Stream(sctx, t, o, rec, observe) // masks a credential the server echoes
	watch.explain(rec, orig.Format)
	rec.RunOffsetMS = float64(rec.Start.Sub(r.start)) / float64(time.Millisecond)
	r.mu.Lock()
	r.sink(rec)
	r.mu.Unlock()
	r.o.Progress.Finished.Add(1)
}

// errHungUp cancels a replayed stream where its recording was canceled.
// The probe records its words as the reason.
var errHungUp error = hungUp{}

type hungUp struct{}

func (hungUp) Error() string {
	return "hung up where the recorded stream was (its client went away, or drip record stopped)"
}

func (hungUp) Is(target error) bool { return target == context.Canceled }

// hangUpAsRecorded is ctx for replaying orig, the probe's observer and a
// stop for when the stream has ended. A stream recorded as canceled (a
// client that went away mid-answer, drip record stopped) is canceled as
// long after its request was sent as the recorded one was, so both sides
// of the comparison hold the same partial stream and not, on one side, a
// whole answer that the recording's e2e and token counts never had. The
// clock starts when the probe sends the request (EventStart), not before
// its turn to connect (probe.MaxConnecting), which a stream among
// thousands starting at once may wait for.
func hangUpAsRecorded(ctx context.Context, orig *record.Record) (context.Context, func(probe.Event), func()) {
	if orig.Status != record.StatusCanceled || orig.DurationMS <= 0 {
		return ctx, nil, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	var timer *time.Timer // set during probe.Stream and stopped after it, by one goroutine
	observe := func(ev probe.Event) {
		if ev.Type == probe.EventStart && timer == nil {
			timer = time.AfterFunc(time.Duration(orig.DurationMS*float64(time.Millisecond)), func() { cancel(errHungUp) })
		}
	}
	return ctx, observe, func() {
		if timer != nil {
			timer.Stop()
		}
		cancel(nil)
	}
}

// target is the recorded request aimed at the server under test. It sends
// the recorded method, path and query on the Against URL, the recorded
// body and headers, then -H, then credentials from the environment by the
// recorded format.
func (r *runner) target(orig *record.Record) probe.Target {
	x := orig.Exchange
	f := adapters.Lookup(orig.Format)
	if f == nil {
		f = adapters.Auto
	}
	h := http.Header{}
	for k, vs := range x.Header {
		h[k] = vs
	}
	for k, vs := range r.o.Header {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	body := x.RequestBody()
	if body == nil {
		body = []byte{}
	}
	return probe.Target{
		URL: joinURL(r.o.Against, x.Path), Method: x.Method, Format: f, Body: body, Header: h, Sign: r.o.Sign,
		Request: adapters.Request{Model: orig.Model},
	}
}

// RepeatedBase is for a path on against that every recorded path already
// starts with (recorded through a base URL such as …/v1, replayed against
// the same …/v1). It returns the URL the first stream is sent to and the
// origin to give instead. Otherwise both are "". The URL is not rewritten,
// because a server may well serve /v1/v1/.
func RepeatedBase(streams []*record.Record, against string) (sentTo, instead string) {
	u, err := url.Parse(against)
	if err != nil || len(streams) == 0 {
		return "", ""
	}
	base := strings.TrimRight(u.Path, "/")
	if base == "" {
		return "", ""
	}
	for _, r := range streams {
		p, _, _ := strings.Cut(r.Exchange.Path, "?")
		if p != base && !strings.HasPrefix(p, base+"/") {
			return "", ""
		}
	}
	origin := *u
	origin.Path, origin.RawPath = "", ""
	return joinURL(against, streams[0].Exchange.Path), origin.String()
}

// joinURL puts a recorded path and query under a base URL's path.
func joinURL(base, pathQuery string) string {
	u, _ := url.Parse(base)
	p, q, _ := strings.Cut(pathQuery, "?")
	u.RawPath = ""
	u.Path = strings.TrimRight(u.Path, "/") + "/" + strings.TrimLeft(p, "/")
	if ep, err := url.PathUnescape(u.Path); err == nil {
		u.Path = ep
	}
	switch {
	case u.RawQuery == "":
		u.RawQuery = q
	case q != "":
		u.RawQuery += "&" + q
	}
	return u.String()
}
