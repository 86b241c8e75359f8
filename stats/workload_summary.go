package stats

import (
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/driplab/drip/record"
)

// PromptStats is one prompt's share of a run. It holds the prompt's
// accounting and the distributions that tell prompts apart.
type PromptStats struct {
	ID           string `json:"id"`
	Streams      int    `json:"streams"` // measured streams recorded
	Completed    int    `json:"completed"`
	Failed       int    `json:"failed"`
	Incomplete   int    `json:"incomplete"`
	Canceled     int    `json:"canceled"`
	TTFT         Dist   `json:"ttft_ms"`
	E2E          Dist   `json:"e2e_ms"`
	ITL          Dist   `json:"itl_ms"`
	OutputTokens Dist   `json:"output_tokens"`
}

// OpenLoop is an open-loop run's view of its own schedule. Service-view
// latencies (Metrics) run from the actual send. User-view ones run from
// the intended start, so they include the client's own queue. A request
// the generator sent late is charged for it, which is what keeps
// coordinated omission out of the figures.
type OpenLoop struct {
	ScheduleLag   Dist    `json:"schedule_lag_ms"` // generator woken − intended, per arrival
	LagBoundMS    float64 `json:"lag_bound_ms"`
	ClientLimited bool    `json:"client_limited"`
	NotAdmitted   int     `json:"not_admitted"`
	ClientQueue   Dist    `json:"client_queue_ms"` // actual send − intended start, per stream
	TTFTUser      Dist    `json:"ttft_user_ms"`    // TTFT from the intended start
	E2EUser       Dist    `json:"e2e_user_ms"`     // e2e from the intended start
	CatchUp       string  `json:"catch_up"`
}

// Signals are per-stream shapes counted for the diagnosis.
type Signals struct {
	ContentFrames   int `json:"content_frames"`
	CoalescedFrames int `json:"coalesced_frames"` // content frames that shared a read
	// FirstBursts counts streams whose first content read carried at least
	// FirstBurstTokens tokens (declared, else text bytes / 4).
	FirstBursts   int `json:"first_bursts"`
	FirstBurstMax int `json:"first_burst_max_tokens"`
	ZeroContent   int `json:"zero_content"` // HTTP 2xx streams that ended with no content text
	// NoFrames counts HTTP 2xx streams whose body bytes decoded into no
	// frame at all. Such a body is not a stream in the format (a
	// non-streaming answer).
	NoFrames int `json:"no_frames"`
	// NotStream counts streams failed not_stream (a document, or one JSON
	// value, under any format), and NotStreamWhy is the first one's
	// message, with the content type and the body's first bytes.
	NotStream    int    `json:"not_stream"`
	NotStreamWhy string `json:"not_stream_why,omitempty"`
	Compressed   int    `json:"compressed"` // streams with a Content-Encoding
	// ContentStreams have content. ReadBuffered of them were buffered by
	// how their content arrived (the bursts or instant delivery rule).
	ContentStreams int `json:"content_streams"`
	ReadBuffered   int `json:"read_buffered"`
	Stutter        int `json:"stutter"` // of them, delivered in regular bursts (class stutter)
	// The next fields hold, over the read-buffered streams, the largest
	// burst (content frames of one read, and that read's bytes) and the
	// longest silence between content reads.
	LargestBurstFrames int     `json:"largest_burst_frames"`
	LargestBurstBytes  int     `json:"largest_burst_bytes"`
	LongestSilenceMS   float64 `json:"longest_silence_ms"`
}

// FirstStream is the cold-start rule's figures. It holds the TTFT of the
// run's first measured stream (lowest seq), and the median and the
// slowest TTFT of the streams after it. Those are up to ColdStartWindow
// streams in all, RestN of them. It is absent without two streams with a
// TTFT, and from merged summaries (each run has its own first stream).
type FirstStream struct {
	TTFTMS        float64 `json:"ttft_ms"`
	RestTTFTP50MS float64 `json:"rest_ttft_p50_ms"`
	RestTTFTMaxMS float64 `json:"rest_ttft_max_ms"`
	RestN         int     `json:"rest_n"`
}

// ColdStartWindow bounds the streams the cold-start rule compares the
// first one with. They are the first ones of the run, where a cold start
// shows.
const ColdStartWindow = 32

// seqTTFT is one stream's place in the run and its TTFT.
type seqTTFT struct {
	seq  int
	ttft float64
}

// earliest keeps the TTFTs of the ColdStartWindow streams of lowest seq.
type earliest []seqTTFT

func (e *earliest) add(r *record.Record) {
	if r.TTFTMS == nil {
		return
	}
	i, _ := slices.BinarySearchFunc(*e, r.Seq, func(x seqTTFT, seq int) int { return x.seq - seq })
	if i >= ColdStartWindow {
		return
	}
	*e = slices.Insert(*e, i, seqTTFT{r.Seq, *r.TTFTMS})
	if len(*e) > ColdStartWindow {
		*e = (*e)[:ColdStartWindow]
	}
}

// firstStream is the first TTFT and the median of the rest. It is nil with
// fewer than two.
func (e earliest) firstStream() *FirstStream {
	if len(e) < 2 {
		return nil
	}
	rest := make([]float64, 0, len(e)-1)
	for _, x := range e[1:] {
		rest = append(rest, x.ttft)
	}
	slices.Sort(rest)
	return &FirstStream{TTFTMS: e[0].ttft, RestTTFTP50MS: Percentile(rest, 50), RestTTFTMaxMS: rest[len(rest)-1], RestN: len(rest)}
}

// workloadStats is the part of an Aggregate that knows about prompts,
// schedules and stream shapes.
type workloadStats struct {
	prompts  map[string]*promptAcc
	queue    Sampler
	ttftUser Sampler
	e2eUser  Sampler
	open     bool
	signals  Signals
	first    earliest
	run      *RunStats
}

type promptAcc struct {
	st                   PromptStats
	ttft, e2e, itl, toks Sampler
}

// SetRun adds what the runner saw (not-admitted arrivals, schedule lag) to
// the aggregate, for the summary.
func (a *Aggregate) SetRun(st RunStats) {
	a.CountNotAdmitted(st.NotAdmitted)
	a.workload.run = &st
}

func (w *workloadStats) add(r *record.Record) {
	w.addPrompt(r)
	if r.IntendedStartMS != nil {
		w.open = true
		queue := r.RunOffsetMS - *r.IntendedStartMS
		w.queue.Add(queue)
		if r.TTFTMS != nil {
			w.ttftUser.Add(queue + *r.TTFTMS)
		}
		if r.Complete && r.E2EMS != nil {
			w.e2eUser.Add(queue + *r.E2EMS)
		}
	}
	w.signals.add(r)
	w.first.add(r)
}

// addPrompt counts the record for its prompt.
func (w *workloadStats) addPrompt(r *record.Record) {
	if w.prompts == nil {
		w.prompts = map[string]*promptAcc{}
	}
	p := w.prompts[r.PromptID]
	if p == nil {
		p = &promptAcc{st: PromptStats{ID: r.PromptID}}
		w.prompts[r.PromptID] = p
	}
	p.st.Streams++
	switch r.Status {
	case record.StatusComplete:
		p.st.Completed++
	case record.StatusFailed:
		p.st.Failed++
	case record.StatusIncomplete:
		p.st.Incomplete++
	case record.StatusCanceled:
		p.st.Canceled++
	}
	p.ttft.AddPtr(r.TTFTMS)
	if r.Complete {
		p.e2e.AddPtr(r.E2EMS)
		p.itl.AddPtr(r.ITLMS)
		p.toks.Add(float64(r.OutputTokens))
	}
}

// add counts what the record's delivery says about the path.
func (sg *Signals) add(r *record.Record) {
	sg.ContentFrames += r.ContentFrames
	sg.CoalescedFrames += r.CoalescedFrames
	if r.ContentEncoding != "" {
		sg.Compressed++
	}
	if d := r.Delivery; d != nil {
		sg.ContentStreams++
		if d.Class == record.DeliveryStutter {
			sg.Stutter++
		}
		if d.Rule == DeliveryBursts || d.Rule == DeliveryInstant {
			sg.ReadBuffered++
			if d.LargestBurstFrames > sg.LargestBurstFrames {
				sg.LargestBurstFrames, sg.LargestBurstBytes = d.LargestBurstFrames, d.LargestBurstBytes
			}
			sg.LongestSilenceMS = max(sg.LongestSilenceMS, d.LongestSilenceMS)
		}
	}
	if b := firstBurstTokens(r); r.Delivery != nil && b >= FirstBurstTokens {
		sg.FirstBursts++
		sg.FirstBurstMax = max(sg.FirstBurstMax, b)
	}
	if r.HTTPStatus/100 == 2 && (r.Error != nil && r.Error.Class == record.ErrNoContent ||
		r.Complete && strings.TrimSpace(r.Text()) == "") {
		sg.ZeroContent++
	}
	switch {
	case r.Error != nil && r.Error.Class == record.ErrNotStream:
		sg.NotStream++
		if sg.NotStreamWhy == "" {
			sg.NotStreamWhy = r.Error.Message
		}
	case r.HTTPStatus/100 == 2 && r.FirstByteMS != nil && len(r.Frames) == 0:
		sg.NoFrames++
	}
}

// firstBurstTokens is the tokens the first content read carried. It takes
// what each frame declared. Failing that, when the server reported usage,
// it takes the stream's tokens per content frame. Otherwise it takes the
// text's bytes / 4 (about one token per four bytes of English), at least
// one per frame.
func firstBurstTokens(r *record.Record) int {
	perFrame := 0.0
	if r.TokensSource == "usage" && r.ContentFrames > 0 {
		perFrame = float64(r.OutputTokens) / float64(r.ContentFrames)
	}
	read, n := -1, 0
	undeclared := 0
	for i := range r.Frames {
		f := &r.Frames[i]
		if !f.IsContent() {
			continue
		}
		if read < 0 {
			read = f.Read
		}
		if f.Read != read {
			break
		}
		t := f.Tokens
		switch {
		case t > 0:
		case perFrame > 0:
			undeclared++
			continue
		case !utf8.ValidString(f.Text):
			t = 1
		default:
			t = max(int(math.Ceil(float64(len(f.Text))/4)), 1)
		}
		n += t
	}
	return n + int(math.Round(float64(undeclared)*perFrame))
}

func (w *workloadStats) fill(s *Summary) {
	s.PerPrompt = []PromptStats{}
	for _, id := range slices.Sorted(maps.Keys(w.prompts)) {
		p := w.prompts[id]
		st := p.st
		st.TTFT, st.E2E, st.ITL, st.OutputTokens = p.ttft.Dist(), p.e2e.Dist(), p.itl.Dist(), p.toks.Dist()
		s.PerPrompt = append(s.PerPrompt, st)
	}
	s.Signals = w.signals
	s.FirstStream = w.first.firstStream()
	if w.run != nil && w.run.SchedLatency.N > 0 {
		sl := w.run.SchedLatency
		bound := ClientLagBoundMS
		if p := TTFT.Of(s.Metrics).P50; p != nil {
			bound = max(bound, ClientLagShare**p)
		}
		s.Client = &Client{
			SchedLatency: sl, BoundMS: &bound,
			Limited: sl.N >= clientLagMinSamples && sl.P99 != nil && *sl.P99 >= bound,
			Source:  "Go runtime /sched/latencies (about 1 in 8 goroutine wake-ups), each figure its bucket's upper edge; no mean: the runtime keeps counts per bucket, no sum",
		}
	}
	if !w.open && (w.run == nil || w.run.Lag.N == 0) {
		return
	}
	ol := &OpenLoop{
		LagBoundMS:  ScheduleLagBoundMS,
		ClientQueue: w.queue.Dist(), TTFTUser: w.ttftUser.Dist(), E2EUser: w.e2eUser.Dist(),
		CatchUp: CatchUpPolicy,
	}
	if w.run != nil {
		ol.ScheduleLag, ol.LagBoundMS, ol.ClientLimited = w.run.Lag, w.run.LagBoundMS, w.run.ClientLimited
		ol.NotAdmitted = w.run.NotAdmitted
	}
	s.OpenLoop = ol
}
