package stats

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/driplab/drip/record"
)

// Dist is a distribution with its sample count. Every statistic is nil when
// there are no samples, because undefined is never 0.
type Dist struct {
	N    int      `json:"n"`
	Min  *float64 `json:"min"`
	Mean *float64 `json:"mean"`
	P50  *float64 `json:"p50"`
	P90  *float64 `json:"p90"`
	P95  *float64 `json:"p95"`
	P99  *float64 `json:"p99"`
	Max  *float64 `json:"max"`
	// Histogram marks percentiles read from a Histogram past the exact
	// sample cap. They are within HistRelativeError of the exact figure.
	Histogram bool `json:"from_histogram,omitempty"`
}

// Percentile is linear interpolation between closest ranks (numpy's
// default) over sorted samples. It is NaN for none.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := p / 100 * float64(n-1)
	lo := int(math.Floor(pos))
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := pos - float64(lo)
	return sorted[lo] + (sorted[lo+1]-sorted[lo])*frac
}

// NewDist summarises samples (which it sorts in place).
func NewDist(samples []float64) Dist {
	d := Dist{N: len(samples)}
	if d.N == 0 {
		return d
	}
	slices.Sort(samples)
	sum := 0.0
	for _, v := range samples {
		sum += v
	}
	d.Min, d.Max = new(samples[0]), new(samples[d.N-1])
	d.Mean = new(sum / float64(d.N))
	d.P50, d.P90 = new(Percentile(samples, 50)), new(Percentile(samples, 90))
	d.P95, d.P99 = new(Percentile(samples, 95)), new(Percentile(samples, 99))
	return d
}

// statNames are the statistics Stat knows, for the messages that list them.
const statNames = "min, mean, p50, p90, p95, p99, max"

// Stat returns a named statistic (statNames).
func (d Dist) Stat(name string) (*float64, bool) {
	switch name {
	case "min":
		return d.Min, true
	case "mean":
		return d.Mean, true
	case "p50":
		return d.P50, true
	case "p90":
		return d.P90, true
	case "p95":
		return d.P95, true
	case "p99":
		return d.P99, true
	case "max":
		return d.Max, true
	}
	return nil, false
}

// Streams is the accounting of a run. Every attempt is in one bucket.
type Streams struct {
	Attempted  int            `json:"attempted"`
	Admitted   int            `json:"admitted"`
	Completed  int            `json:"completed"`
	Failed     int            `json:"failed"`
	Incomplete int            `json:"incomplete"`
	Canceled   int            `json:"canceled"`
	Buffered   int            `json:"buffered"`
	Warmup     int            `json:"warmup"`
	FailedBy   map[string]int `json:"failed_by_class"`
	// FailedMessages are the failed streams' own messages (the server's
	// words for an HTTP error), the most frequent of each class, counted.
	FailedMessages []FailureMessage `json:"failed_messages,omitempty"`
	// WithTokenCount is the measured streams that have a token count. It
	// is the denominator of tokens_approx_pct (TokensApproxDefinition).
	WithTokenCount int `json:"with_token_count"`
}

// Throughput is output tokens of completed streams over the run window.
type Throughput struct {
	OutputTokens int      `json:"output_tokens"`
	WindowMS     *float64 `json:"window_ms"`
	TokensPerS   *float64 `json:"tokens_per_s"`
	MeanTPSUser  *float64 `json:"mean_of_stream_tps_user"`
	StreamsPerS  *float64 `json:"completed_streams_per_s"`
	Definition   string   `json:"definition"`
	// Runs counts the runs (run ids) whose windows were laid over each
	// other, each from its own first request, when there are more than one
	// (merged hosts or shards). Hosts' clocks are never compared.
	Runs int `json:"runs,omitempty"`
}

// OverlaidDefinition is added to the throughput's definition when the
// window spans several runs.
const OverlaidDefinition = "; several runs (run ids) are laid over each other, each from its own first request (hosts' clocks are never compared), so this is their combined rate as if they ran at the same time"

// Stalls counts gaps at or above the threshold.
type Stalls struct {
	ThresholdMS      float64  `json:"threshold_ms"`
	Count            int      `json:"count"`
	MidSentence      int      `json:"mid_sentence"`
	StreamsWithStall int      `json:"streams_with_stall"`
	LongestMS        *float64 `json:"longest_ms"`
}

// Freezes counts what the readers of stutter streams (delivery class
// stutter) saw between bursts, under the stall threshold or not. Each
// freeze is a silence a reader watched, even when no stall counts it.
type Freezes struct {
	Streams int `json:"streams"` // stutter streams
	// FirstHeld counts the stutter streams whose first content read
	// carried more than one content frame. Their ITL is withheld.
	FirstHeld   int      `json:"first_held"`
	Count       int      `json:"count"`
	LongestMS   *float64 `json:"longest_ms"`
	PeriodMinMS *float64 `json:"period_min_ms"` // the shortest stream's period
	PeriodMaxMS *float64 `json:"period_max_ms"`
}

// Add pools another run's (or stream's) freezes. Counts add, and the
// longest freeze and the period range widen.
func (f *Freezes) Add(o Freezes) {
	f.Streams += o.Streams
	f.FirstHeld += o.FirstHeld
	f.Count += o.Count
	f.LongestMS = extreme(f.LongestMS, o.LongestMS, 1)
	f.PeriodMinMS = extreme(f.PeriodMinMS, o.PeriodMinMS, -1)
	f.PeriodMaxMS = extreme(f.PeriodMaxMS, o.PeriodMaxMS, 1)
}

// extreme is the larger of a and b (sign 1) or the smaller (sign -1),
// either of them nil when absent.
func extreme(a, b *float64, sign float64) *float64 {
	if b == nil || a != nil && sign*(*b-*a) <= 0 {
		return a
	}
	return new(*b)
}

// freezesOf is one record's freezes, none unless it stuttered.
func freezesOf(r *record.Record) Freezes {
	d := r.Delivery
	if d == nil || d.Class != record.DeliveryStutter || d.Freezes == nil {
		return Freezes{}
	}
	f := Freezes{Streams: 1, Count: d.Freezes.Count, LongestMS: new(d.Freezes.LongestMS), PeriodMinMS: d.PeriodMS, PeriodMaxMS: d.PeriodMS}
	if d.FirstHeld != nil && *d.FirstHeld {
		f.FirstHeld = 1
	}
	return f
}

// Conventions state how every figure was computed.
type Conventions struct {
	Percentiles string `json:"percentiles"`
	TTFT        string `json:"ttft"`
	Gaps        string `json:"gaps"`
	Excluded    string `json:"excluded"`
	Buffered    string `json:"buffered"`
	Tokens      string `json:"tokens"`
}

// Workload describes what was run, so runs can be compared fairly.
type Workload struct {
	Target      string   `json:"target"`
	Format      string   `json:"format"`
	Model       string   `json:"model,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Runs        int      `json:"runs"`
	Warmup      int      `json:"warmup"`
	WarmupRule  string   `json:"warmup_policy"`
	Concurrency int      `json:"concurrency,omitempty"`
	Rate        float64  `json:"rate,omitempty"`
	Arrival     string   `json:"arrival,omitempty"`
	Burstiness  float64  `json:"burstiness,omitempty"` // gamma arrivals' shape
	Ramp        string   `json:"ramp,omitempty"`       // the rate's rise from 0, e.g. "30s"
	Seed        int64    `json:"seed,omitempty"`
	Duration    string   `json:"duration,omitempty"`
	MaxInflight int      `json:"max_inflight,omitempty"`
	PromptIDs   []string `json:"prompt_ids,omitempty"`
	Order       string   `json:"order,omitempty"`
	Version     string   `json:"drip_version,omitempty"`
	Hosts       []string `json:"hosts,omitempty"` // the hosts of the records
	// TLSInsecure says -k/--insecure was given and the server's
	// certificate was not verified.
	TLSInsecure bool `json:"tls_insecure,omitempty"`
	record.Lengths
}

// ArrivalWords names the open loop's arrivals as constant, poisson, trace,
// or gamma with its burstiness, and the ramp when there is one.
func (w Workload) ArrivalWords() string {
	s := w.Arrival
	if w.Arrival == "gamma" {
		s += " (burstiness " + strconv.FormatFloat(w.Burstiness, 'g', -1, 64) + ")"
	}
	if w.Ramp != "" {
		s += ", rising from 0 over " + w.Ramp + ","
	}
	return s
}

// TokensApproxDefinition is tokens_approx_pct's rule. A stream that failed
// before any content and without a usage report has no token count at
// all. It is not approximated, and it is left out of the share.
const TokensApproxDefinition = "tokens_approx_pct: of the streams with a token count (a usage report, or at least one content frame: streams.with_token_count), the share whose count is approximated (no usage report, one token per content frame); null when no stream has a token count"

// HasTokenCount tells whether a record has a token count, from the
// server's usage report or from content frames to count.
func HasTokenCount(r *record.Record) bool {
	return r.TokensSource == "usage" || r.ContentFrames > 0
}

// Summary is the one-object result of a run. docs/records.md (Summary) and
// docs/schema/summary.v1.schema.json describe it.
type Summary struct {
	V               int             `json:"v"`
	Conventions     Conventions     `json:"conventions"`
	Workload        Workload        `json:"workload"`
	Streams         Streams         `json:"streams"`
	Metrics         Metrics         `json:"metrics"`
	Throughput      Throughput      `json:"throughput"`
	Stalls          Stalls          `json:"stalls"`
	Freezes         Freezes         `json:"freezes"`
	TokensApproxPct *float64        `json:"tokens_approx_pct"` // TokensApproxDefinition
	Server          map[string]Dist `json:"server,omitempty"`
	PerPrompt       []PromptStats   `json:"per_prompt"`
	OpenLoop        *OpenLoop       `json:"open_loop,omitempty"`
	Goodput         *Goodput        `json:"goodput,omitempty"` // with --slo
	Client          *Client         `json:"client,omitempty"`
	ConnectRamp     *ConnectRamp    `json:"connect_ramp,omitempty"`
	// Witness is the client kernel's account of the streams' reads and
	// connections. It is absent for no streams.
	Witness     *WitnessSummary `json:"witness,omitempty"`
	Signals     Signals         `json:"signals"`
	FirstStream *FirstStream    `json:"first_stream,omitempty"`
	Diagnosis   []Diagnosis     `json:"diagnosis"`
	Gates       []GateResult    `json:"gates"`
	// Histograms hold every distribution's values mergeably, so summaries
	// from many hosts pool into one (drip merge --summaries).
	Histograms *SummaryHistograms `json:"histograms,omitempty"`
	// MergedFrom names the summaries drip merge --summaries pooled.
	MergedFrom []string `json:"merged_from,omitempty"`
}

// SummaryHistograms are a summary's mergeable histograms, by the name of
// the distribution in Metrics, with the rule of their buckets.
type SummaryHistograms struct {
	Buckets       string                   `json:"buckets"`
	Gamma         float64                  `json:"gamma"`
	MinValue      float64                  `json:"min_value"`
	RelativeError float64                  `json:"relative_error"`
	Metrics       map[string]HistogramJSON `json:"metrics"`
}

// HistogramBuckets states the buckets of SummaryHistograms.
const HistogramBuckets = "bucket i holds [min_value·gamma^i, min_value·gamma^(i+1)), read back as its harmonic midpoint; values below min_value count in zero; counts[0] is bucket offset. A percentile from merged histograms is within relative_error of the percentile over the pooled raw values (plus min_value absolute); n, sum, min and max are exact"

// Client is drip's own share of the latency. It says how late its
// goroutines ran after they became runnable while the measured streams
// ran.
type Client struct {
	SchedLatency Dist `json:"sched_latency_ms"`
	// BoundMS is ClientLagBoundMS, or ClientLagShare of the TTFT p50 when
	// that is more. Limited is set when the p99 reaches it. BoundMS is
	// null when the runtime sampled nothing, as for a file read back, where
	// Client is there for OS alone.
	BoundMS *float64 `json:"bound_ms"`
	Limited bool     `json:"limited"`
	Source  string   `json:"source"`
	// OS is the OS's account of the process over each stream, or that it
	// was not available. It holds the run-queue wait the Go runtime cannot
	// see, where the OS takes the CPU from the whole process.
	OS *ClientOS `json:"os,omitempty"`
}

// ConnectRamp is the streams that waited for a turn to connect, and how
// long. The probe lets at most probe.MaxConnecting get a connection at
// once. ConnectRamp is absent when none waited. A stream's other times
// start after its wait.
type ConnectRamp struct {
	Waited int  `json:"waited"`
	Wait   Dist `json:"wait_ms"`
}

// Diagnosis is a labelled hint with the evidence that triggered it.
type Diagnosis struct {
	Shape    string `json:"shape"`
	Hint     string `json:"hint"`
	Evidence string `json:"evidence"`
}

// Aggregate accumulates records into a Summary. Add records as they end.
// Warmup records are counted and otherwise left out.
type Aggregate struct {
	// SLO, when set before the first Add, is held against every measured
	// stream for the summary's goodput.
	SLO              *SLO
	sloMet           int
	StallMS          float64
	streams          Streams
	dists            map[string]*Sampler // by Metric.JSON
	connectWait      Sampler
	server           map[string]*Sampler
	stalls           Stalls
	freezes          Freezes
	approx           int // streams with a token count that is approximated
	tokens           int
	winStart, winEnd float64
	haveWin          bool
	workload         workloadStats
	hosts            map[string]bool
	runIDs           map[string]bool
	os               clientOS
	witness          witnessAgg
	failures         FailureCounts
}

// NewAggregate returns an empty aggregate with the stall threshold (ms).
func NewAggregate(stallMS float64) *Aggregate {
	a := &Aggregate{StallMS: stallMS, streams: Streams{FailedBy: map[string]int{}}, dists: map[string]*Sampler{}}
	for _, m := range Registry {
		a.dists[m.JSON] = &Sampler{}
	}
	return a
}

// CountNotAdmitted counts n arrivals the run dropped instead of queueing.
// They were attempted, so they count in Streams.Attempted, and nowhere else.
func (a *Aggregate) CountNotAdmitted(n int) { a.streams.Attempted += n }

// Add counts one finished record.
func (a *Aggregate) Add(r *record.Record) {
	if r.Phase == record.PhasePassthrough {
		return // a request that did not stream has no figures (drip record)
	}
	if r.Phase == record.PhaseWarmup {
		a.streams.Warmup++
		return
	}
	a.count(r)
	for i := range Registry {
		m := &Registry[i]
		for _, v := range m.Observations(r) {
			a.dists[m.JSON].Add(v)
		}
	}
	a.connectWait.AddPtr(r.ConnectWaitMS)
	a.os.add(r)
	a.witness.add(r)
	if r.Complete {
		a.tokens += r.OutputTokens
	}
	a.addServer(r)
	a.workload.add(r)
	if r.Host != "" {
		if a.hosts == nil {
			a.hosts = map[string]bool{}
		}
		a.hosts[r.Host] = true
	}
	if a.runIDs == nil {
		a.runIDs = map[string]bool{}
	}
	a.runIDs[r.RunID] = true
	a.addStalls(r)
	a.addWindow(r)
}

// count puts a measured record in the accounting.
func (a *Aggregate) count(r *record.Record) {
	s := &a.streams
	s.Attempted++
	s.Admitted++
	switch r.Status {
	case record.StatusComplete:
		s.Completed++
	case record.StatusFailed:
		s.Failed++
		if r.Error != nil {
			s.FailedBy[r.Error.Class]++
			a.failures.Add(r.Error.Class, r.Error.Message, 1)
		}
	case record.StatusIncomplete:
		s.Incomplete++
	case record.StatusCanceled:
		s.Canceled++
	}
	if r.Buffered {
		s.Buffered++
	}
	if HasTokenCount(r) {
		s.WithTokenCount++
		if r.TokensSource == "approx" {
			a.approx++
		}
	}
	if a.SLO != nil && a.SLO.Met(r) {
		a.sloMet++
	}
}

// addServer pools the server-reported numbers.
func (a *Aggregate) addServer(r *record.Record) {
	for k, v := range r.Server {
		if f, ok := v.(float64); ok {
			if a.server == nil {
				a.server = map[string]*Sampler{}
			}
			if a.server[k] == nil {
				a.server[k] = &Sampler{}
			}
			a.server[k].Add(f)
		}
	}
}

func (a *Aggregate) addStalls(r *record.Record) {
	for _, st := range r.Stalls {
		a.stalls.Count++
		if st.MidSentence {
			a.stalls.MidSentence++
		}
		if a.stalls.LongestMS == nil || st.GapMS > *a.stalls.LongestMS {
			a.stalls.LongestMS = new(st.GapMS)
		}
	}
	if len(r.Stalls) > 0 {
		a.stalls.StreamsWithStall++
	}
	a.freezes.Add(freezesOf(r))
}

// addWindow widens the run window, which runs from the first request sent
// to the last content.
func (a *Aggregate) addWindow(r *record.Record) {
	if !a.haveWin || r.RunOffsetMS < a.winStart {
		a.winStart = r.RunOffsetMS
	}
	if r.E2EMS != nil || r.TTFTMS != nil {
		last := r.RunOffsetMS + r.LastContentMS()
		if !a.haveWin || last > a.winEnd {
			a.winEnd = last
		}
	}
	a.haveWin = true
}

func (a *Aggregate) goodput(s *Summary) *Goodput {
	g := &Goodput{SLO: a.SLO.Expr, Met: a.sloMet, Of: a.streams.Attempted, Definition: goodputDefinition}
	if g.Of > 0 {
		g.Pct = new(100 * float64(g.Met) / float64(g.Of))
	}
	if w := s.Throughput.WindowMS; w != nil && *w > 0 {
		g.PerS = new(float64(g.Met) / *w * 1000)
	}
	return g
}

// streamsSummary is the accounting with the failures' messages.
func (a *Aggregate) streamsSummary() Streams {
	s := a.streams
	s.FailedMessages = a.failures.Top()
	return s
}

// summaryConventions says how a summary's figures are counted. A merged
// summary (fleet) restates its percentiles.
var summaryConventions = Conventions{
	Percentiles: "linear interpolation between closest ranks (numpy default), pooled over raw observations; n beside each; exact up to 50000 samples per metric, beyond that read from a log-bucketed histogram within 0.5% (from_histogram)",
	TTFT:        "first content frame (text, reasoning or tool arguments); role chunks, keepalives and usage never count",
	Gaps:        "differences between consecutive content frame arrival times; frames of one read give 0 and are kept",
	Excluded:    "warmup streams; e2e, tail, ITL, tps_user and token counts use completed streams only",
	Buffered:    "from the reads (docs/delivery.md): fewer than 3 content frames, or >=50% of content frames in reads of >=4, or >=10 tokens under 0.05 ms apart: ITL and tps_user withheld; a stutter stream (>=3 regular freezes between bursts, period <=1 s) is not buffered and keeps its ITL unless its first content was held",
	Tokens:      "from the server's usage report when present, else one per content frame (approx); " + TokensApproxDefinition,
}

// Summary computes the run's summary from everything added so far.
func (a *Aggregate) Summary(w Workload) Summary {
	s := Summary{
		V:           record.RecordVersion,
		Conventions: summaryConventions,
		Workload:    w,
		Streams:     a.streamsSummary(),
		Metrics:     Metrics{},
		Stalls:      a.stalls,
		Freezes:     a.freezes,
		Diagnosis:   []Diagnosis{},
		Gates:       []GateResult{},
	}
	for k, d := range a.dists {
		s.Metrics[k] = d.Dist()
	}
	s.Stalls.ThresholdMS = a.StallMS
	s.Throughput = Throughput{
		OutputTokens: a.tokens,
		Definition:   "output tokens of completed streams / run window (first request sent to last content received)",
		MeanTPSUser:  TPSUser.Of(s.Metrics).Mean,
	}
	if len(a.runIDs) > 1 {
		s.Throughput.Runs = len(a.runIDs)
		s.Throughput.Definition += OverlaidDefinition
	}
	if a.haveWin && a.winEnd > a.winStart && a.streams.Completed > 0 {
		win := a.winEnd - a.winStart
		s.Throughput.WindowMS = new(win)
		s.Throughput.TokensPerS = new(float64(a.tokens) / win * 1000)
		s.Throughput.StreamsPerS = new(float64(a.streams.Completed) / win * 1000)
	}
	if n := a.streams.WithTokenCount; n > 0 {
		s.TokensApproxPct = new(100 * float64(a.approx) / float64(n))
	}
	if len(a.server) > 0 {
		s.Server = map[string]Dist{}
		for k, v := range a.server {
			s.Server[k] = v.Dist()
		}
	}
	if a.SLO != nil {
		s.Goodput = a.goodput(&s)
	}
	if n := a.connectWait.N(); n > 0 {
		s.ConnectRamp = &ConnectRamp{Waited: n, Wait: a.connectWait.Dist()}
	}
	a.workload.fill(&s)
	a.clientFigures(&s)
	s.Diagnosis = Diagnose(&s)
	s.Histograms = a.histograms()
	if len(s.Workload.Hosts) == 0 && len(a.hosts) > 0 {
		s.Workload.Hosts = slices.Sorted(maps.Keys(a.hosts))
	}
	return s
}

// clientFigures puts the OS's and the kernel's accounts of the client in s.
func (a *Aggregate) clientFigures(s *Summary) {
	if o := a.os.summary(); o != nil && (o.Available || s.Client != nil) { // "not available" beside a live run's runtime figures, but no client when neither
		if s.Client == nil {
			s.Client = &Client{}
		}
		s.Client.OS = o
	}
	s.Witness = a.witness.summary()
}

// histograms exports the histogram of every metric that has one.
func (a *Aggregate) histograms() *SummaryHistograms {
	h := &SummaryHistograms{Buckets: HistogramBuckets, Gamma: HistGamma, MinValue: HistMin, RelativeError: HistRelativeError, Metrics: map[string]HistogramJSON{}}
	for _, m := range Registry {
		if m.Out&InHistogram != 0 {
			h.Metrics[m.JSON] = a.dists[m.JSON].Export()
		}
	}
	return h
}
