package record

import (
	"encoding/json"
	"math"
	"strings"
	"time"
)

// RecordVersion is the "v" of every record and summary drip writes.
const RecordVersion = 1

// Phases of a stream in a run.
const (
	PhaseMeasure = "measure"
	PhaseWarmup  = "warmup"
)

// Statuses of a finished stream.
const (
	StatusComplete   = "complete"   // clean end and the format's end marker
	StatusIncomplete = "incomplete" // ended without an end marker
	StatusFailed     = "failed"     // an error (see Error.Class)
	StatusCanceled   = "canceled"   // stopped by the user
)

// Frame is one decoded frame in a record, stamped with the time of the read
// that completed it.
type Frame struct {
	TMS     float64 `json:"t_ms"` // ms from the record's start
	Read    int     `json:"read"` // index of the read that completed it
	Bytes   int     `json:"bytes"`
	Kind    Kind    `json:"kind"`
	Channel Channel `json:"channel,omitempty"` // content frames, text when omitted
	Tokens  int     `json:"tokens,omitempty"`  // when the format says
	Text    string  `json:"text,omitempty"`
	// Usage is a report of output tokens so far that the frame carried.
	Usage  *int                       `json:"usage,omitempty"`
	Server map[string]json.RawMessage `json:"server,omitempty"`
}

// IsContent reports a content frame.
func (f *Frame) IsContent() bool { return f.Kind == KindContent }

// IsAnswer reports content that is not reasoning (answer text or tool args).
func (f *Frame) IsAnswer() bool {
	return f.IsContent() && f.Channel != ChannelReasoning
}

// Error classifies a failed stream. Messages never carry URLs, keys or
// request content.
type Error struct {
	Class      string `json:"class"`
	Message    string `json:"message,omitempty"`
	Status     int    `json:"status,omitempty"`
	RetryAfter string `json:"retry_after,omitempty"`
}

// Error classes (docs/records.md, Error classes).
const (
	ErrHTTP4xx      = "http_4xx"
	ErrHTTP429      = "http_429"
	ErrHTTP5xx      = "http_5xx"
	ErrTimeoutTotal = "timeout_total"
	ErrTimeoutIdle  = "timeout_idle"
	ErrReset        = "reset"
	ErrRefused      = "refused"
	ErrTLS          = "tls"
	ErrDNS          = "dns"
	ErrDecode       = "decode"
	ErrInStream     = "in_stream"
	ErrCanceled     = "canceled"
	ErrNoContent    = "no_content"
	ErrRedirect     = "redirect" // a redirect drip refused to follow
	ErrLimit        = "limit"    // past a per-stream bound (--max-frames, --max-bytes)
	ErrRequest      = "request"  // the request could not be built or signed, so nothing was sent
	// ErrNotStream is, under any format, a 2xx whose content type and
	// bytes are no stream format (a login page, a whole JSON answer).
	ErrNotStream = "not_stream"
)

// PathHeadersWithContent says the headers came with the first content
// (Ollama holds them until its first token), so their time is the server's wait
// and the path's, not the path's alone.
const PathHeadersWithContent = "headers_with_content"

// Stall is a gap between content frames at or above the stall threshold.
type Stall struct {
	Frame       int     `json:"frame"`  // index in Frames of the content frame that ended it
	AtMS        float64 `json:"at_ms"`  // when the stall began (previous content)
	GapMS       float64 `json:"gap_ms"` // its length
	MidSentence bool    `json:"mid_sentence"`
}

// Record is one stream, what was sent, every frame and the derived metrics.
// Derived fields are filled by Derive from the raw times, so a record read
// back from disk can be re-derived and checked.
type Record struct {
	V               int    `json:"v"`
	RunID           string `json:"run_id"`
	Seq             int    `json:"seq"`
	Phase           string `json:"phase"`
	PromptID        string `json:"prompt_id"`
	Target          string `json:"target"`
	Format          string `json:"format"`
	Model           string `json:"model,omitempty"`
	Status          string `json:"status"`
	Truncated       bool   `json:"truncated,omitempty"` // ended inside a frame
	HTTPStatus      int    `json:"http_status,omitempty"`
	ContentEncoding string `json:"content_encoding,omitempty"`
	StartUnixNS     int64  `json:"start_unix_ns"`
	// RunOffsetMS is when the stream started, in ms from the run's start on
	// the run's monotonic clock. It puts a run's streams on one time axis.
	RunOffsetMS     float64  `json:"run_offset_ms"`
	IntendedStartMS *float64 `json:"intended_start_ms,omitempty"`
	// ConnectWaitMS is how long the stream waited for its turn to connect
	// (MaxConnecting) before its request was sent. It is absent when it did
	// not wait. Its other times start after the wait.
	ConnectWaitMS *float64 `json:"connect_wait_ms,omitempty"`
	// ConnectMS is how long the stream took to get a new connection, the
	// dial and, over https, the TLS handshake. Null on a reused connection
	// (its headers_ms holds no connect) and when none was made.
	ConnectMS    *float64 `json:"connect_ms"`
	HeadersMS    *float64 `json:"headers_ms"`
	FirstByteMS  *float64 `json:"first_byte_ms"`
	FirstEventMS *float64 `json:"first_event_ms"`
	TTFTMS       *float64 `json:"ttft_ms"`
	// TTFTPathMS and TTFTServerMS split TTFT at the headers. The path's
	// part is the round trip the headers show, min(headers_ms, ttft_ms),
	// since most servers send headers at once. The server's part is the
	// first content after them. Null without content or headers, and when the headers
	// came with the first content (TTFTPathUnknown says so).
	TTFTPathMS   *float64 `json:"ttft_path_ms"`
	TTFTServerMS *float64 `json:"ttft_server_ms"`
	// TTFTPathUnknown is why a stream with content and headers has no
	// TTFT split, which is PathHeadersWithContent.
	TTFTPathUnknown string    `json:"ttft_path_unknown,omitempty"`
	TTFOMS          *float64  `json:"ttfo_ms"`
	E2EMS           *float64  `json:"e2e_ms"`
	DurationMS      float64   `json:"duration_ms"`
	TailMS          *float64  `json:"tail_ms"`
	ITLMS           *float64  `json:"itl_ms"`
	TPSUser         *float64  `json:"tps_user"`
	Complete        bool      `json:"complete"`
	Buffered        bool      `json:"buffered"`
	Delivery        *Delivery `json:"delivery"` // how the content arrived, null without content
	// ClientCPU is what the OS says of drip's own process over the
	// stream. It is absent where /proc is not there to ask (not Linux), or when
	// no OS sampler ran beside the stream.
	ClientCPU *ClientCPU `json:"client_cpu,omitempty"`
	// Witness is what the client's kernel saw of the stream's connection,
	// when each read's data arrived and in how many segments, and the
	// socket's TCP figures. Absent where the kernel does not say (not
	// Linux, a connection that is no TCP socket).
	Witness *Witness `json:"witness,omitempty"`
	// TTFTPathRTTMS is, when the TTFT split is unknown (TTFTPathUnknown),
	// the path's round trip as the client's kernel measured it, TCP_INFO's
	// smoothed rtt at the headers. Absent when split or not witnessed.
	TTFTPathRTTMS *float64 `json:"ttft_path_rtt_ms,omitempty"`
	// HeldMS is TTFT minus when the server says its first token was ready
	// (serverFirstTokenMS), the time the first token spent in transit.
	// Null when the server does not say.
	HeldMS       *float64 `json:"held_ms"`
	Error        *Error   `json:"error"`
	OutputTokens int      `json:"output_tokens"`
	// InputTokens is the prompt's length as the server's usage report gave
	// it (prompt_tokens, input_tokens). It is null when the format or
	// server gives none.
	InputTokens  *int   `json:"input_tokens,omitempty"`
	TokensSource string `json:"tokens_source"` // "usage" or "approx"
	// TokensRejected says why a server's token report was not counted.
	TokensRejected  string   `json:"tokens_rejected,omitempty"`
	ContentFrames   int      `json:"content_frames"`
	CoalescedFrames int      `json:"coalesced_frames"` // content frames that shared a read with another
	TokensPerFrame  *float64 `json:"tokens_per_frame"`
	Reads           int      `json:"reads"`
	Stalls          []Stall  `json:"stalls"`
	StallMS         float64  `json:"stall_threshold_ms"`
	Frames          []Frame  `json:"frames"`
	// Keepalives counts every keepalive frame. Frames keeps the first 100.
	Keepalives int             `json:"keepalives,omitempty"`
	Server     map[string]any  `json:"server,omitempty"`
	Redirects  []Redirect      `json:"redirects,omitempty"` // those followed, in order
	Request    json.RawMessage `json:"request,omitempty"`   // only with --keep-request
	Workload   *RecordWorkload `json:"workload,omitempty"`
	// Host is the machine that ran the stream (its hostname unless the
	// user named it), and Labels the user's own k=v tags. Runs from many
	// hosts are merged and grouped by them (drip merge, compare --by).
	Host   string            `json:"host,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	// Level is the sweep level the stream ran at (its concurrency, or its
	// rate in arrivals per second). It is absent outside a sweep.
	Level *float64 `json:"level,omitempty"`
	// Exchange is the request and response drip record saw. It comes after
	// frames, because appendRecord relies on no key before "frames" being
	// "frames".
	Exchange *Exchange `json:"exchange,omitempty"`

	// Start is the monotonic reading taken just before the request was
	// sent. It is kept in memory only, for pairing with an in-process
	// server's clock.
	Start time.Time `json:"-"`
}

// RecordWorkload is the part of a run's workload that a record's other fields
// do not show. Every record of a run carries it, so runs read back from disk
// can be checked for a fair comparison (drip compare). Absent in records
// written before it existed.
type RecordWorkload struct {
	MaxTokens   int     `json:"max_tokens,omitempty"` // 0 for the server's default
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"` // arrivals per second (open loop)
	Version     string  `json:"drip_version,omitempty"`
	Shard       string  `json:"shard,omitempty"` // "i/N" of a sharded run
	// Arrival names an open loop's schedule beyond a constant or Poisson
	// rate, such as gamma with its burstiness, a ramp, or a trace.
	Arrival string `json:"arrival,omitempty"`
	Lengths
}

// Lengths are the prompt and output lengths a run asked for and the
// dataset its prompts came from, as the user gave them. Runs that differ
// in them are different workloads.
type Lengths struct {
	InputTokens  string `json:"input_tokens,omitempty"`  // --input-tokens, N or N±SD
	OutputTokens string `json:"output_tokens,omitempty"` // --output-tokens, N or N±SD
	Dataset      string `json:"dataset,omitempty"`       // "sharegpt NAME" or "mooncake_trace NAME", NAME the file's base name
}

// LengthWords says the lengths asked for and the dataset, "" when the
// prompts are the user's own.
func (l Lengths) LengthWords() string {
	var parts []string
	if l.Dataset != "" {
		parts = append(parts, "dataset "+l.Dataset)
	}
	if l.InputTokens != "" {
		parts = append(parts, "input tokens "+l.InputTokens)
	}
	if l.OutputTokens != "" {
		parts = append(parts, "output tokens "+l.OutputTokens)
	}
	return strings.Join(parts, " · ")
}

// MidSentenceStalls counts the stalls that fell inside a sentence.
func (r *Record) MidSentenceStalls() int {
	n := 0
	for _, s := range r.Stalls {
		if s.MidSentence {
			n++
		}
	}
	return n
}

// ClientCPU is the OS's account of drip's whole process over a window
// about one stream's. It runs from the reading of drip's OS sampler newest
// at its start to the one newest at its end (probe.CPUSampler, four a second), or
// the sampler's last interval before its end for a stream shorter than
// that. How long a thread waited runnable for a core
// (/proc/self/task/*/schedstat, second field) is the longest any one
// thread waited, never a sum over threads. The time on a core is the
// process's (every thread), and the machine's CPU pressure and steal are
// context. Other streams in flight share the process, so the figures are
// the process's, not one reader's.
type ClientCPU struct {
	WindowMS        float64 `json:"window_ms"`
	MaxThreadWaitMS float64 `json:"max_thread_wait_ms"`
	OnCPUMS         float64 `json:"on_cpu_ms"`
	Slices          int     `json:"slices"`  // times the threads got a core
	Threads         int     `json:"threads"` // the process's threads at the window's end
	// PressurePct is the share of the window in which some task of the
	// machine waited for a CPU (/proc/pressure/cpu). StealPct is the share
	// of the machine's CPU time a hypervisor took (/proc/stat). Both are
	// null where the kernel does not say.
	PressurePct *float64 `json:"cpu_pressure_pct"`
	StealPct    *float64 `json:"steal_pct"`
	// Starved and ExcusedRule are derived (stats, docs/delivery.md).
	// Starved says a thread waited for a core for a good share of the
	// window. ExcusedRule is the buffered rule the stream's reads met, not
	// applied because the client's wait explains its bursts.
	Starved     bool   `json:"starved"`
	ExcusedRule string `json:"excused_rule,omitempty"`
}

// Witness is the client's kernel account of one stream's connection,
// read from the socket drip reads it through (docs/records.md, Witness).
// Over HTTP/2 the connection may carry other streams, and its figures then
// describe the connection.
type Witness struct {
	// Stamped says the kernel gave a software receive time (SO_TIMESTAMPING)
	// with at least one read, which has a lag then.
	Stamped bool `json:"stamped"`
	// Reads are the stream's reads that returned bytes, in order. Reads[i]
	// is the read Frame.Read calls i.
	Reads []WitnessRead `json:"reads"`
	// TCP are the socket's figures at the headers, the first content,
	// the end of each silence (a stall, or a freeze as it could be told
	// live) and the end.
	TCP []TCPSample `json:"tcp"`

	// The rest is derived (stats). It holds the lag's p50, p99 and max
	// over the reads (null without stamps), and the content reads whose
	// frames arrived in separate segments (the reader's own merge) or in
	// one segment (merged before the socket). It holds the data segments
	// per content read, and the out-of-order segments received and the
	// retransmits over the stream (the last sample's counts minus the
	// headers').
	LagP50MS        *float64 `json:"lag_p50_ms"`
	LagP99MS        *float64 `json:"lag_p99_ms"`
	LagMaxMS        *float64 `json:"lag_max_ms"`
	ReaderMerges    int      `json:"reader_merges"`
	SocketMerges    int      `json:"socket_merges"`
	SegmentsPerRead *float64 `json:"segments_per_read"`
	OutOfOrder      int      `json:"out_of_order"`
	Retransmits     int      `json:"retransmits"`
	// Silences are the waits between content reads a reader would notice
	// (a stall, or a freeze of at least 50 ms and 4 times the stream's mean
	// spacing), told apart by the read that ended each (stats).
	Silences Silences `json:"silences"`
	// Late says the reader took its reads late (stats.ReaderLateRule).
	Late bool `json:"late"`
	// ExcusedRule is the delivery rule (stutter's interval, buffered's
	// bursts) the stream met and was lifted from because its silences
	// were lost segments' (stats.LossRule).
	ExcusedRule string `json:"excused_rule,omitempty"`
}

// Silences counts a stream's silences by what the kernel saw of the read
// that ended each. It sorts them into out-of-order segments or
// retransmits (Loss), frames that came in one segment (Merged, before the
// socket), frames that came in several segments read together
// (ReaderMerged), and one frame alone (OneFrame).
type Silences struct {
	Count        int `json:"count"`
	Loss         int `json:"loss"`
	Merged       int `json:"merged"`
	ReaderMerged int `json:"reader_merged"`
	OneFrame     int `json:"one_frame"`
}

// Add counts o's silences in s.
func (s *Silences) Add(o Silences) {
	s.Count += o.Count
	s.Loss += o.Loss
	s.Merged += o.Merged
	s.ReaderMerged += o.ReaderMerged
	s.OneFrame += o.OneFrame
}

// WitnessRead is the kernel's account of one read. The flags come last,
// so a read takes 24 bytes, as a run may keep one for each read of every
// stream it recorded.
type WitnessRead struct {
	// LagMS is the read's stamp minus the kernel's receive time of the
	// newest segment the read took, which is how late the reader took it.
	LagMS float64 `json:"lag_ms"`
	// Segs are the data segments that arrived since the previous read
	// (TCP_INFO data_segs_in). OutOfOrder and Retransmits are the
	// out-of-order segments received and the client's retransmits since then.
	Segs        int32 `json:"segs"`
	OutOfOrder  int32 `json:"ooo,omitempty"`
	Retransmits int32 `json:"retrans,omitempty"`
	// NoStamp says the kernel gave no receive time with the read, which has
	// no lag (LagMS 0).
	NoStamp bool `json:"no_stamp,omitempty"`
	// NoSegs says the witness did not ask TCP_INFO after this read (one
	// content frame at most, ending no silence), so Segs is 0 and its
	// segments are counted as one in the next read's.
	NoSegs bool `json:"no_segs,omitempty"`
}

// TCP sample places say where in the stream a TCPSample was taken.
const (
	TCPAtHeaders      = "headers"
	TCPAtFirstContent = "first_content"
	TCPAtSilence      = "silence_end"
	TCPAtEnd          = "end"
)

// TCPSample is the socket's TCP_INFO at one point of a stream. Counts
// are the connection's since it opened.
type TCPSample struct {
	At            string  `json:"at"`
	TMS           float64 `json:"t_ms"`
	RTTMS         float64 `json:"rtt_ms"`     // smoothed round trip
	MinRTTMS      float64 `json:"min_rtt_ms"` // the least seen
	RcvRTTMS      float64 `json:"rcv_rtt_ms"` // the receiver's estimate
	OutOfOrder    int     `json:"ooo"`        // out-of-order segments received (rcv_ooopack)
	Retransmits   int     `json:"retrans"`    // the client's retransmits (total_retrans)
	BytesReceived int64   `json:"bytes_received"`
}

// Redirect is one redirect a stream followed.
type Redirect struct {
	Status      int    `json:"status"`
	To          string `json:"to"` // the location, redacted
	CrossOrigin bool   `json:"cross_origin,omitempty"`
}

// Delivery classes say how the content reached drip.
const (
	DeliveryClean    = "clean"    // about as the server wrote it
	DeliveryStutter  = "stutter"  // in bursts at a regular interval, the answer not held whole
	DeliveryBuffered = "buffered" // gathered and handed over, ITL withheld
)

// Delivery is how a stream's content arrived, its class and the evidence
// for it.
type Delivery struct {
	Class string `json:"class"` // DeliveryClean, DeliveryStutter or DeliveryBuffered
	Reads int    `json:"reads"` // reads that carried content
	// Bursts are reads carrying BurstFrames or more content frames, and
	// BurstFrames the content frames they carried.
	Bursts      int `json:"bursts"`
	BurstFrames int `json:"burst_frames"`
	// The read that carried the most content frames, by its frames and the
	// bytes of all its frames.
	LargestBurstFrames int `json:"largest_burst_frames"`
	LargestBurstBytes  int `json:"largest_burst_bytes"`
	// LongestSilenceMS is the longest wait between two content reads.
	LongestSilenceMS float64 `json:"longest_silence_ms"`
	Rule             string  `json:"rule,omitempty"` // the rule that made it buffered or stutter, empty when clean
	// The stutter evidence is set only for that class. It is the median time
	// between the starts of bursts, the freezes between them, and whether
	// the first content read carried more than one content frame (then
	// the first content was held and ITL is withheld).
	PeriodMS  *float64 `json:"period_ms,omitempty"`
	Freezes   *Freezes `json:"freezes,omitempty"`
	FirstHeld *bool    `json:"first_held,omitempty"`
}

// Freezes are the silences a reader saw between a stutter stream's
// bursts, whatever the stall threshold.
type Freezes struct {
	Count     int     `json:"count"`
	P50MS     float64 `json:"p50_ms"`
	LongestMS float64 `json:"longest_ms"`
}

// Gaps returns the differences between consecutive content frame times.
// Frames that shared a read give gaps of 0, which are kept. They are
// counted first so the slice is made once, because a live screen asks for
// the gaps of a stream of 100,000 frames every redraw of its figures.
func (r *Record) Gaps() []float64 {
	n := 0
	for i := range r.Frames {
		if r.Frames[i].IsContent() {
			n++
		}
	}
	if n < 2 {
		return nil
	}
	gaps := make([]float64, 0, n-1)
	prev := math.NaN()
	for i := range r.Frames {
		if f := &r.Frames[i]; f.IsContent() {
			if !math.IsNaN(prev) {
				gaps = append(gaps, f.TMS-prev)
			}
			prev = f.TMS
		}
	}
	return gaps
}

// LastContentMS is the time of the last content frame, 0 without one.
func (r *Record) LastContentMS() float64 {
	for i := len(r.Frames) - 1; i >= 0; i-- {
		if r.Frames[i].IsContent() {
			return r.Frames[i].TMS
		}
	}
	return 0
}

// Text returns the streamed content text, reasoning included.
func (r *Record) Text() string {
	var b strings.Builder
	for i := range r.Frames {
		if r.Frames[i].IsContent() {
			b.WriteString(r.Frames[i].Text)
		}
	}
	return b.String()
}
