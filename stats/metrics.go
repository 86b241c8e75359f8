package stats

import (
	"bytes"
	"encoding/json"

	"github.com/driplab/drip/record"
)

// Better says which way a change of a figure is good.
type Better int8

// Directions of a metric.
const (
	Neutral        Better = iota // a change is neither better nor worse (a count of tokens, a setting)
	LowerIsBetter                // latencies, failures, stalls
	HigherIsBetter               // completions, rates, throughput
)

// MarshalText spells the direction in JSON.
func (b Better) MarshalText() ([]byte, error) {
	return []byte([...]string{"neutral", "lower", "higher"}[b]), nil
}

// Outputs are the places a metric appears.
type Outputs uint8

const (
	InGate      Outputs = 1 << iota // --fail-if KEY.pNN
	InCompare                       // a section of drip compare
	InText                          // a row of the text report
	InCSV                           // a column of the CSV, from Value
	InHistogram                     // a mergeable histogram in the summary
	InTelemetry                     // a histogram on /metrics and in the OTLP push
	everywhere  = InGate | InCompare | InText | InCSV | InHistogram | InTelemetry
)

// A Metric is one distribution drip reports. Its entry in Registry is the
// only place it is defined. The aggregate pools it, and the summary's
// JSON, the gates, compare, the text report, the CSV, the clocks panel and
// the Prometheus and OTLP series are built from the table.
type Metric struct {
	Key        string // gate and compare name, such as "ttft" (gates say ttft.p95)
	JSON       string // name in the summary's metrics and histograms, and the CSV column, such as "ttft_ms"
	Label      string // row of the text report and title of a compare section, without a unit: the cells carry it
	Unit       string // "ms" for times (gates take any Go duration unit), else "" or "tok/s"
	Better     Better
	Definition string
	// Value is a stream's figure, nil where undefined. Samples, when set,
	// are the stream's observations instead, as for gaps with many per
	// stream.
	Value   func(*record.Record) *float64
	Samples func(*record.Record) []float64
	// Completed says only completed streams' figures are pooled.
	Completed bool
	Out       Outputs
	// Clock places the metric on the clocks panel under ClockLabel, in
	// increasing order, and 0 leaves it off. Rows past the panel's height
	// are cut (its last line names them), so the figures added last come
	// last.
	Clock      int
	ClockLabel string
	// OTel names the OTLP histogram where the OpenTelemetry GenAI semantic
	// conventions name the figure. When empty the name is
	// drip.stream.<Key>.
	OTel string
}

// Registry lists every metric in report order.
var Registry = []Metric{
	{Key: "ttft", JSON: "ttft_ms", Label: "ttft", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Clock: 10, ClockLabel: "wait (ttft)", OTel: "gen_ai.client.operation.time_to_first_chunk",
		Definition: "first content frame (text, reasoning or tool arguments)", Value: func(r *record.Record) *float64 { return r.TTFTMS }},
	{Key: "ttft_path", JSON: "ttft_path_ms", Label: "ttft path", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Clock: 112, ClockLabel: "path / server",
		Definition: "the path's part of ttft: min(headers, ttft), the round trip the headers show (most servers send headers at once); null when the headers came with the first content", Value: func(r *record.Record) *float64 { return r.TTFTPathMS }},
	{Key: "ttft_server", JSON: "ttft_server_ms", Label: "ttft server", Unit: "ms", Better: LowerIsBetter, Out: everywhere,
		Definition: "the server's part of ttft: ttft − ttft_path, the first content after the headers", Value: func(r *record.Record) *float64 { return r.TTFTServerMS }},
	{Key: "ttfo", JSON: "ttfo_ms", Label: "ttfo", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Clock: 50, ClockLabel: "ttfo",
		Definition: "first content that is not reasoning (answer text or tool arguments)", Value: func(r *record.Record) *float64 { return r.TTFOMS }},
	{Key: "first_byte", JSON: "first_byte_ms", Label: "first byte", Unit: "ms", Better: LowerIsBetter, Out: everywhere &^ InCompare, Clock: 40, ClockLabel: "first byte",
		Definition: "first body bytes received", Value: func(r *record.Record) *float64 { return r.FirstByteMS }},
	{Key: "gap", JSON: "gap_ms", Label: "gap", Unit: "ms", Better: LowerIsBetter, Out: everywhere &^ InCSV, Clock: 60, OTel: "gen_ai.client.operation.time_per_output_chunk",
		Definition: "differences between consecutive content frame times", Samples: (*record.Record).Gaps},
	{Key: "itl", JSON: "itl_ms", Label: "itl", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Completed: true, Clock: 80, ClockLabel: "itl",
		Definition: "(e2e − ttft) / (output tokens − 1); withheld for buffered streams", Value: func(r *record.Record) *float64 { return r.ITLMS }},
	{Key: "e2e", JSON: "e2e_ms", Label: "e2e", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Completed: true,
		Definition: "last content frame", Value: func(r *record.Record) *float64 { return r.E2EMS }},
	{Key: "tail", JSON: "tail_ms", Label: "tail", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Completed: true, Clock: 30, ClockLabel: "tail",
		Definition: "the third clock: end of the stream − last content frame", Value: func(r *record.Record) *float64 { return r.TailMS }},
	{Key: "headers", JSON: "headers_ms", Label: "headers", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Clock: 110, ClockLabel: "headers",
		Definition: "response headers received", Value: func(r *record.Record) *float64 { return r.HeadersMS }},
	{Key: "connect", JSON: "connect_ms", Label: "connect", Unit: "ms", Better: LowerIsBetter, Out: everywhere &^ InCompare,
		Definition: "a new connection's dial and TLS handshake, within headers; none on a reused connection", Value: func(r *record.Record) *float64 { return r.ConnectMS }},
	{Key: "first_event", JSON: "first_event_ms", Label: "first event", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Clock: 120, ClockLabel: "first event",
		Definition: "first decoded frame of any kind (role, keepalive and usage frames count)", Value: func(r *record.Record) *float64 { return r.FirstEventMS }},
	{Key: "tt2t", JSON: "tt2t_ms", Label: "tt2t", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Clock: 130, ClockLabel: "2nd token",
		Definition: "the content frame that brought the second output token (a frame counts its tokens when the format says, else one)", Value: secondTokenMS},
	{Key: "stream", JSON: "stream_ms", Label: "stream", Unit: "ms", Better: LowerIsBetter, Out: everywhere, Clock: 20, ClockLabel: "stream",
		Definition: "the middle clock: last content frame − first content frame", Value: streamMS},
	{Key: "duration", JSON: "duration_ms", Label: "duration", Unit: "ms", Better: LowerIsBetter, Out: everywhere &^ InCompare, OTel: "gen_ai.client.operation.duration",
		Definition: "end of the stream − start", Value: func(r *record.Record) *float64 { return new(r.DurationMS) }},
	{Key: "tps_user", JSON: "tps_user", Label: "tps/user", Unit: "tok/s", Better: HigherIsBetter, Out: everywhere &^ InCompare, Completed: true, Clock: 90, ClockLabel: "tok/s per user",
		Definition: "1000 / itl", Value: func(r *record.Record) *float64 { return r.TPSUser }},
	{Key: "output_tokens", JSON: "output_tokens", Label: "tokens", Better: Neutral, Out: everywhere &^ InCompare, Completed: true, Clock: 70, OTel: "gen_ai.client.token.usage",
		Definition: "output tokens of a stream (the server's usage report, else one per content frame)", Value: func(r *record.Record) *float64 { return new(float64(r.OutputTokens)) }},
	{Key: "input_tokens", JSON: "input_tokens", Label: "input tokens", Better: Neutral, Out: InCSV | InHistogram | InTelemetry,
		Definition: "the prompt's tokens as the server's usage report gave them", Value: inputTokens},
	{Key: "held", JSON: "held_ms", Label: "held", Unit: "ms", Better: LowerIsBetter, Out: InTelemetry, Clock: 100, ClockLabel: "held (server)",
		Definition: "ttft − the server's own time to its first token: how long the first token was in transit", Value: func(r *record.Record) *float64 { return r.HeldMS }},
	{Key: "reader_lag", JSON: "reader_lag_ms", Label: "reader lag", Unit: "ms", Better: LowerIsBetter, Out: InGate | InHistogram | InTelemetry,
		Definition: "a read's stamp − the kernel's receive time of the newest segment it took (SO_TIMESTAMPING, Linux): how late drip's reader took what had arrived", Samples: readerLagSamples},
}

// The metrics product code reads by name, each its Registry entry. A
// figure is read as TTFT.Of(s.Metrics), never by a string.
var (
	TTFT         = registered("ttft")
	TTFO         = registered("ttfo")
	TTFTPath     = registered("ttft_path")
	TTFTServer   = registered("ttft_server")
	Gap          = registered("gap")
	ITL          = registered("itl")
	E2E          = registered("e2e")
	Tail         = registered("tail")
	Headers      = registered("headers")
	Held         = registered("held")
	TPSUser      = registered("tps_user")
	OutputTokens = registered("output_tokens")
	InputTokens  = registered("input_tokens")
	ReaderLag    = registered("reader_lag")
)

// registered is the Registry entry of key. A missing key is a bug in this
// file, caught as the package loads.
func registered(key string) *Metric {
	for i := range Registry {
		if Registry[i].Key == key {
			return &Registry[i]
		}
	}
	panic("stats: no metric " + key + " in the registry")
}

// Of is the metric's distribution in ms, or the zero Dist (N 0) where ms
// has none.
func (m *Metric) Of(ms Metrics) Dist { return ms[m.JSON] }

// MetricsIn are the registry's metrics that appear in o, in registry
// order.
func MetricsIn(o Outputs) []Metric {
	var out []Metric
	for _, m := range Registry {
		if m.Out&o != 0 {
			out = append(out, m)
		}
	}
	return out
}

// MetricByKey finds a metric by its gate and compare name.
func MetricByKey(key string) (Metric, bool) {
	for _, m := range Registry {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// Observations are what a stream adds to the metric's distribution. A
// stream the metric leaves out adds none.
func (m *Metric) Observations(r *record.Record) []float64 {
	if m.Completed && !r.Complete {
		return nil
	}
	if m.Samples != nil {
		return m.Samples(r)
	}
	if v := m.Value(r); v != nil {
		return []float64{*v}
	}
	return nil
}

// Metrics are the pooled distributions of a run by their JSON name
// (docs/records.md, Summary). A metric with no samples has N 0.
type Metrics map[string]Dist

// MarshalJSON writes the distributions in registry order.
func (m Metrics) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, reg := range Registry {
		d, ok := m[reg.JSON]
		if !ok {
			continue
		}
		v, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + reg.JSON + `":`)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func streamMS(r *record.Record) *float64 {
	if r.TTFTMS == nil {
		return nil
	}
	return new(r.LastContentMS() - *r.TTFTMS)
}

// secondTokenMS is when the second output token arrived, the time of the
// content frame that brought the count to two.
func secondTokenMS(r *record.Record) *float64 {
	n := 0
	for i := range r.Frames {
		f := &r.Frames[i]
		if !f.IsContent() {
			continue
		}
		n += max(f.Tokens, 1)
		if n >= 2 {
			return new(f.TMS)
		}
	}
	return nil
}

func inputTokens(r *record.Record) *float64 {
	if r.InputTokens == nil {
		return nil
	}
	return new(float64(*r.InputTokens))
}
