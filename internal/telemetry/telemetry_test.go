package telemetry_test

import (
	"bufio"
	"cmp"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/telemetry"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// records are a run's worth of derived records: measured streams with
// content every gap ms (one with a 600 ms stall), a failed stream, a
// warmup stream the figures must leave out.
func records(t *testing.T) []*record.Record {
	t.Helper()
	var recs []*record.Record
	for i := range 5 {
		r := &record.Record{RunID: "r", Seq: i, Phase: record.PhaseMeasure, PromptID: "p" + strconv.Itoa(i%2), Target: "http://127.0.0.1:9/v1/chat/completions",
			Format: "openai-chat", Model: "m", StartUnixNS: 1_700_000_000_000_000_000 + int64(i)*1e9}
		at := 150.0 + float64(i)
		for j := range 8 {
			r.Frames = append(r.Frames, record.Frame{TMS: at, Read: j, Bytes: 8, Kind: adapters.KindContent, Text: " w"})
			at += 20 + float64(j)
			if i == 2 && j == 3 {
				at += 600
			}
		}
		r.Frames = append(r.Frames, record.Frame{TMS: at, Read: 8, Kind: adapters.KindEnd})
		r.DurationMS = at + 2
		recs = append(recs, r)
	}
	recs[0].Phase = record.PhaseWarmup
	recs = append(recs, &record.Record{RunID: "r", Seq: 5, Phase: record.PhaseMeasure, PromptID: "p0", Target: recs[1].Target,
		Format: "openai-chat", Model: "m", DurationMS: 3, Error: &record.Error{Class: record.ErrRefused}})
	for _, r := range recs {
		if err := stats.Derive(r, stats.DefaultStall); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range recs[:5] { // the usage report's prompt length and the server's own wait
		r.InputTokens, r.HeldMS = new(12+i), new(3.5+float64(i))
	}
	return recs
}

func summary(recs []*record.Record) stats.Summary {
	agg := stats.NewAggregate(stats.DefaultStall)
	for _, r := range recs {
		agg.Add(r)
	}
	return agg.Summary(stats.Workload{})
}

// scrape sums the samples of each series name whose labels contain every
// one of want.
func scrape(t *testing.T, url string) map[string]float64 {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sums := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		series, val, _ := strings.Cut(line, " ")
		name, labels, _ := strings.Cut(series, "{")
		if !strings.Contains(labels, `host="h1"`) || !strings.Contains(labels, `region="eu"`) {
			t.Fatalf("series without the run's host and labels: %s", line)
		}
		v, _ := strconv.ParseFloat(val, 64)
		sums[name] += v
		if strings.Contains(labels, `status="failed"`) {
			sums[name+"/failed/"+labelValue(labels, "error_class")] += v
		}
	}
	return sums
}

func labelValue(labels, key string) string {
	_, rest, _ := strings.Cut(labels, key+`="`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

func TestPrometheusCountsWhatTheSummaryCounts(t *testing.T) {
	t.Parallel()
	recs := records(t)
	s := summary(recs)
	got := scrapeRun(t, recs)
	for name, want := range map[string]int{
		"drip_streams_total":                s.Streams.Admitted,
		"drip_streams_total/failed/refused": s.Streams.FailedBy[record.ErrRefused],
		"drip_ttft_seconds_count":           s.Metrics["ttft_ms"].N,
		"drip_gap_seconds_count":            s.Metrics["gap_ms"].N,
		"drip_itl_seconds_count":            s.Metrics["itl_ms"].N,
		"drip_e2e_seconds_count":            s.Metrics["e2e_ms"].N,
		"drip_stalls_total":                 s.Stalls.Count,
		"drip_output_tokens_total":          s.Throughput.OutputTokens,
	} {
		if got[name] != float64(want) {
			t.Errorf("%s = %v, want %d (the summary's)", name, got[name], want)
		}
	}
	if s.Streams.Admitted != 5 || s.Stalls.Count != 1 || s.Streams.FailedBy[record.ErrRefused] != 1 {
		t.Fatalf("the fixture records are not what the test means: %+v, %d stalls", s.Streams, s.Stalls.Count)
	}
	// Seconds, not milliseconds: the sums agree with the summary's means.
	if want := *s.Metrics["ttft_ms"].Mean * float64(s.Metrics["ttft_ms"].N) / 1000; !near(got["drip_ttft_seconds_sum"], want) {
		t.Errorf("drip_ttft_seconds_sum = %v, want %v", got["drip_ttft_seconds_sum"], want)
	}
}

// Every registry metric sent is a histogram on /metrics with the
// summary's count and sum, the prompt's length and the server's held time
// among them (a dashboard could show neither).
func TestPrometheusHasEveryRegistryMetric(t *testing.T) {
	t.Parallel()
	recs := records(t)
	s := summary(recs)
	got := scrapeRun(t, recs)
	for _, name := range []string{"drip_input_tokens_count", "drip_held_seconds_count"} {
		if got[name] != 4 {
			t.Errorf("%s = %v, want the 4 measured streams that have one", name, got[name])
		}
	}
	for _, m := range stats.MetricsIn(stats.InTelemetry) {
		name, div := "drip_"+m.Key, 1.0
		if m.Unit == "ms" {
			name, div = name+"_seconds", 1000
		}
		d := s.Metrics[m.JSON]
		if got[name+"_count"] != float64(d.N) || d.N > 0 && !near(got[name+"_sum"], *d.Mean*float64(d.N)/div) {
			t.Errorf("%s: count %v sum %v, the summary's %s n %d mean %v", name, got[name+"_count"], got[name+"_sum"], m.JSON, d.N, num(d.Mean))
		}
	}
}

func num(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// scrapeRun serves recs on /metrics and scrapes it once.
func scrapeRun(t *testing.T, recs []*record.Record) map[string]float64 {
	t.Helper()
	p, err := telemetry.NewPrometheus("127.0.0.1:0", "h1", map[string]string{"region": "eu"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background(), 0)
	for _, r := range recs {
		p.Add(r)
	}
	return scrape(t, "http://"+p.Addr()+"/metrics")
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// receiver is an OTLP/HTTP endpoint that decodes what it is sent.
type receiver struct {
	mu      sync.Mutex
	metrics []*colmetrics.ExportMetricsServiceRequest
	traces  []*coltrace.ExportTraceServiceRequest
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var err error
	switch r.URL.Path {
	case "/otlp/v1/metrics":
		m := &colmetrics.ExportMetricsServiceRequest{}
		err = proto.Unmarshal(body, m)
		rc.metrics = append(rc.metrics, m)
	case "/otlp/v1/traces":
		tr := &coltrace.ExportTraceServiceRequest{}
		err = proto.Unmarshal(body, tr)
		rc.traces = append(rc.traces, tr)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// lastPoints is, per metric name, the count (histograms) or value
// (counters) summed over the points of the last export, with the
// resource's and points' attributes checked on the way.
func (rc *receiver) lastPoints(t *testing.T) map[string]float64 {
	out := map[string]float64{}
	if len(rc.metrics) == 0 {
		t.Fatal("no metrics export arrived")
	}
	for _, rm := range rc.metrics[len(rc.metrics)-1].ResourceMetrics {
		res := attrs(rm.Resource.Attributes)
		if res["host.name"] != "h1" || res["region"] != "eu" || res["service.name"] != "drip" {
			t.Errorf("resource attributes %v", res)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				switch d := m.Data.(type) {
				case *metricspb.Metric_Histogram:
					for _, p := range d.Histogram.DataPoints {
						checkGenAI(t, m.Name, attrs(p.Attributes))
						out[m.Name] += float64(p.Count)
						out[m.Name+".sum"] += p.GetSum()
					}
				case *metricspb.Metric_Sum:
					for _, p := range d.Sum.DataPoints {
						out[m.Name] += float64(p.GetAsInt())
					}
				}
			}
		}
	}
	return out
}

func checkGenAI(t *testing.T, name string, a map[string]string) {
	want := map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "m",
		"server.address": "127.0.0.1", "server.port": "9", "drip.format": "openai-chat"}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("%s: attribute %s = %q, want %q", name, k, a[k], v)
		}
	}
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return m
}

func TestOTLPPushesTheSummarysFiguresAndASpanPerStream(t *testing.T) {
	t.Parallel()
	recs := records(t)
	s := summary(recs)
	rc := pushOTLP(t, recs, true)
	got := rc.lastPoints(t)
	for name, want := range map[string]float64{
		"gen_ai.client.operation.duration":              float64(s.Metrics["duration_ms"].N),
		"gen_ai.client.operation.time_to_first_chunk":   float64(s.Metrics["ttft_ms"].N),
		"gen_ai.client.operation.time_per_output_chunk": float64(s.Metrics["gap_ms"].N),
		"drip.stream.itl":                               float64(s.Metrics["itl_ms"].N),
		"drip.stream.e2e":                               float64(s.Metrics["e2e_ms"].N),
		"gen_ai.client.token.usage":                     float64(s.Metrics["output_tokens"].N),
		"gen_ai.client.token.usage.sum":                 float64(s.Throughput.OutputTokens),
		"drip.streams":                                  float64(s.Streams.Admitted),
		"drip.stream.stalls":                            float64(s.Stalls.Count),
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v (the summary's)", name, got[name], want)
		}
	}
	for _, m := range stats.MetricsIn(stats.InTelemetry) { // every registry metric sent, by its name
		if name := cmp.Or(m.OTel, "drip.stream."+m.Key); got[name] != float64(s.Metrics[m.JSON].N) {
			t.Errorf("%s = %v, want the summary's %s n %d", name, got[name], m.JSON, s.Metrics[m.JSON].N)
		}
	}
	var spans []*tracepb.Span
	for _, tr := range rc.traces {
		for _, rs := range tr.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	if len(spans) != len(recs) {
		t.Fatalf("%d spans, want one per stream (%d)", len(spans), len(recs))
	}
	stalls, failed := 0, 0
	for _, sp := range spans {
		if sp.Name != "chat m" || sp.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("span %q kind %v, want \"chat m\" client", sp.Name, sp.Kind)
		}
		for _, ev := range sp.Events {
			if ev.Name == "drip.stall" {
				stalls++
				if ev.TimeUnixNano <= sp.StartTimeUnixNano || ev.TimeUnixNano >= sp.EndTimeUnixNano {
					t.Errorf("stall event at %d outside its span [%d, %d]", ev.TimeUnixNano, sp.StartTimeUnixNano, sp.EndTimeUnixNano)
				}
			}
		}
		if sp.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
			failed++
		}
	}
	if stalls != 1 || failed != 1 {
		t.Errorf("%d stall events and %d failed spans, want 1 and 1", stalls, failed)
	}
}

// BenchmarkAdd is the CPU each exporter spends on one finished record of
// the 1,000-stream benchmark's shape (200 content frames), on the sink's
// goroutine: against the ~18 µs per frame (3.6 ms per such stream) drip
// spends reading and stamping, it is what exporting adds.
func BenchmarkAdd(b *testing.B) {
	r := &record.Record{Phase: record.PhaseMeasure, PromptID: "s1", Target: "http://127.0.0.1:9/v1/chat/completions", Format: "openai-chat", Model: "paced"}
	for j := range 200 {
		r.Frames = append(r.Frames, record.Frame{TMS: 100 + 50*float64(j), Read: j, Bytes: 20, Kind: adapters.KindContent, Text: " w"})
	}
	r.Frames = append(r.Frames, record.Frame{TMS: 10100, Read: 200, Kind: adapters.KindEnd})
	r.DurationMS = 10101
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		b.Fatal(err)
	}
	b.Run("prometheus", func(b *testing.B) {
		p, err := telemetry.NewPrometheus("127.0.0.1:0", "h", nil)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(context.Background(), 0)
		for b.Loop() {
			p.Add(r)
		}
	})
	b.Run("otlp", func(b *testing.B) {
		srv := httptest.NewServer(&receiver{})
		defer srv.Close()
		o, err := telemetry.NewOTLP(context.Background(), telemetry.OTLPConfig{Endpoint: srv.URL + "/otlp", Host: "h"})
		if err != nil {
			b.Fatal(err)
		}
		defer o.Close(context.Background())
		for b.Loop() {
			o.Add(r)
		}
	})
}

// A prompt file of many ids does not become as many series: past
// MaxPromptLabels, streams count under prompt_id="_other", and every
// stream is still counted.
func TestPromptLabelsAreCapped(t *testing.T) {
	t.Parallel()
	p, err := telemetry.NewPrometheus("127.0.0.1:0", "h1", map[string]string{"region": "eu"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background(), 0)
	r := records(t)[1]
	for i := range telemetry.MaxPromptLabels + 8 {
		rr := *r
		rr.PromptID = "s" + strconv.Itoa(i)
		p.Add(&rr)
	}
	resp, err := http.Get("http://" + p.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ids := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if series, val, ok := strings.Cut(sc.Text(), " "); ok && strings.HasPrefix(series, "drip_streams_total{") {
			v, _ := strconv.ParseFloat(val, 64)
			ids[labelValue(series, "prompt_id")] += v
		}
	}
	if len(ids) != telemetry.MaxPromptLabels+1 || ids[telemetry.OtherPrompts] != 8 {
		t.Errorf("%d prompt_id values, %v under %s; want %d and 8", len(ids), ids[telemetry.OtherPrompts], telemetry.OtherPrompts, telemetry.MaxPromptLabels+1)
	}
}

// osc52 sets the clipboard of a terminal that shows it.
const osc52 = "\x1b]52;c;ZWNobyBvd25lZA==\x07"

// hostile is a record whose prompt id, model, target and error class
// carry terminal controls (a prompt file's id, a server's model name).
func hostile(t *testing.T) []*record.Record {
	recs := records(t)[1:]
	for _, r := range recs {
		r.PromptID, r.Model, r.RunID = "p"+osc52, "m\x1b[31m\x9b", "r"+osc52
		r.Target = "http://127.0.0.1:9/v1/chat/completions?x=" + osc52
		if r.Error != nil {
			r.Error.Class = "refused" + osc52
		}
	}
	return recs
}

// controlIn says where s holds a control byte other than a line end.
func controlIn(s string) int {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 })
}

// Label values carry no control: prompt ids carrying OSC 52 reached the
// scrape as 8,416 raw ESC and BEL bytes.
func TestPrometheusLabelsCarryNoControl(t *testing.T) {
	t.Parallel()
	p, err := telemetry.NewPrometheus("127.0.0.1:0", "h1\x1b[2J", map[string]string{"region": "eu" + osc52})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background(), 0)
	for _, r := range hostile(t) {
		p.Add(r)
	}
	resp, err := http.Get("http://" + p.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if i := controlIn(string(b)); i >= 0 || !strings.Contains(string(b), `prompt_id="p"`) {
		t.Errorf("the scrape holds a control at %d (%q), or not the prompt id without it", i, b[max(i-40, 0):min(i+40, len(b))])
	}
}

// OTLP attributes, span names and statuses carry no control either.
func TestOTLPAttributesCarryNoControl(t *testing.T) {
	t.Parallel()
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	o, err := telemetry.NewOTLP(context.Background(), telemetry.OTLPConfig{Endpoint: srv.URL + "/otlp", Traces: true,
		Host: "h1" + osc52, Labels: map[string]string{"region": "eu" + osc52}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range hostile(t) {
		o.Add(r)
	}
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var texts []string
	for _, m := range rc.metrics {
		texts = append(texts, protoStrings(m)...)
	}
	for _, tr := range rc.traces {
		texts = append(texts, protoStrings(tr)...)
	}
	if len(texts) == 0 {
		t.Fatal("nothing arrived")
	}
	for _, s := range texts {
		if controlIn(s) >= 0 {
			t.Errorf("pushed %q", s)
		}
	}
}

// protoStrings is every string field of m, at any depth.
func protoStrings(m proto.Message) []string {
	var out []string
	var walk func(protoreflect.Message)
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := range v.List().Len() {
					walk(v.List().Get(i).Message())
				}
			case fd.IsList() || fd.IsMap():
			case fd.Message() != nil:
				walk(v.Message())
			case fd.Kind() == protoreflect.StringKind:
				out = append(out, v.String())
			}
			return true
		})
	}
	walk(m.ProtoReflect())
	return out
}
