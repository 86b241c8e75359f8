package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// OTLPConfig says where to push and what.
type OTLPConfig struct {
	// Endpoint is the OTLP/HTTP base URL (…/v1/metrics and …/v1/traces are
	// appended). When it is empty, the OTEL_EXPORTER_OTLP_* variables decide.
	Endpoint string
	Traces   bool // one span per stream, stalls as span events
	Host     string
	Labels   map[string]string
	Version  string
}

// OTLPFromEnv reports whether the standard variables name an endpoint, so
// a run pushes without --otlp.
func OTLPFromEnv() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// headerVars are the variables that give the exporter headers to send, as
// comma-separated name=value pairs with the values URL-encoded.
var headerVars = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"}

// HeaderSecrets masks the values of the headers headerVars give, as sent
// and as written (redact.CredentialValues masks a Bearer's token alone
// too), and as a JSON error body escapes them ("\/" for "/"). A collector
// that echoes its credential in an error body has it in the exporter's
// error, and drip says that error on stderr, so every line of it passes
// through here first.
func HeaderSecrets() *redact.Masker {
	var values []string
	for _, name := range headerVars {
		for _, kv := range strings.Split(os.Getenv(name), ",") {
			_, v, ok := strings.Cut(kv, "=")
			if v = strings.TrimSpace(v); !ok || v == "" {
				continue
			}
			if dec, err := url.PathUnescape(v); err == nil {
				v = dec
			}
			for _, s := range redact.CredentialValues(v) {
				values = append(values, s, strings.ReplaceAll(s, "/", `\/`))
			}
		}
	}
	return redact.NewMasker(values)
}

// CheckProtocol refuses an OTLP protocol drip does not speak. drip pushes
// http/protobuf only.
func CheckProtocol() error {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		if p := os.Getenv(v); p != "" && p != "http/protobuf" {
			return fmt.Errorf("%s=%s: drip pushes OTLP over http/protobuf only", v, p)
		}
	}
	return nil
}

// OTLP pushes the run's figures as OpenTelemetry metrics, named by the
// GenAI semantic conventions where they have a name and drip.* otherwise,
// and optionally one span per stream.
type OTLP struct {
	mp      *sdkmetric.MeterProvider
	tp      *sdktrace.TracerProvider
	tracer  trace.Tracer
	ins     otlpInstruments
	errMu   sync.Mutex
	errs    int
	lastErr error
	prompts promptLabels
}

type otlpInstruments struct {
	hists           []otlpHist
	streams, stalls metric.Int64Counter
}

// An otlpHist is a registry metric's OTLP histogram.
type otlpHist struct {
	m   stats.Metric
	h   metric.Float64Histogram
	c   convention
	opt metric.RecordOption // the convention's fixed attributes
}

// A convention is what the GenAI semantic conventions say of an
// instrument they name beyond its name.
type convention struct {
	unit      string
	bounds    []float64
	errorType bool // a failed stream's error.type beside its attributes
	tokenType bool // gen_ai.token.type is the metric's key before "_tokens"
}

// conventions are the GenAI instruments with more than a name to keep.
var conventions = map[string]convention{
	"gen_ai.client.operation.duration": {errorType: true},
	"gen_ai.client.token.usage": {unit: "{token}", tokenType: true,
		bounds: []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}},
}

// otelUnits are the units sent for the registry's units (UCUM, as the
// conventions write them). Times are sent in seconds.
var otelUnits = map[string]string{"ms": "s", "tok/s": "{token}/s", "": "1"}

// secondsView gives every seconds histogram drip's own boundaries (Buckets)
// rather than the conventions' advisory ones, so a quantile read from the
// pushed series carries the same documented error as the scraped one.
var secondsView = sdkmetric.NewView(
	sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram, Unit: "s"},
	sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: Buckets}},
)

// NewOTLP starts the metric (and trace) pipelines. Nothing is sent until
// the first export interval or Close.
func NewOTLP(ctx context.Context, c OTLPConfig) (*OTLP, error) {
	o := &OTLP{prompts: promptLabels{}}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(o.noteErr))
	attrs := []attribute.KeyValue{
		attribute.String("service.name", "drip"), attribute.String("service.version", c.Version), attribute.String("host.name", label(c.Host)),
	}
	for _, k := range slices.Sorted(maps.Keys(c.Labels)) {
		attrs = append(attrs, attribute.String(k, label(c.Labels[k])))
	}
	res := resource.NewSchemaless(attrs...)
	var mopts []otlpmetrichttp.Option
	if c.Endpoint != "" {
		mopts = append(mopts, otlpmetrichttp.WithEndpointURL(strings.TrimSuffix(c.Endpoint, "/")+"/v1/metrics"))
	}
	exp, err := otlpmetrichttp.New(ctx, mopts...)
	if err != nil {
		return nil, err
	}
	var ropts []sdkmetric.PeriodicReaderOption
	if os.Getenv("OTEL_METRIC_EXPORT_INTERVAL") == "" {
		ropts = append(ropts, sdkmetric.WithInterval(10*time.Second))
	}
	o.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithView(secondsView),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, ropts...)))
	if err := o.ins.create(o.mp.Meter("github.com/driplab/drip")); err != nil {
		return nil, err
	}
	if c.Traces {
		var topts []otlptracehttp.Option
		if c.Endpoint != "" {
			topts = append(topts, otlptracehttp.WithEndpointURL(strings.TrimSuffix(c.Endpoint, "/")+"/v1/traces"))
		}
		texp, err := otlptracehttp.New(ctx, topts...)
		if err != nil {
			return nil, err
		}
		o.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(texp))
		o.tracer = o.tp.Tracer("github.com/driplab/drip")
	}
	return o, nil
}

func (in *otlpInstruments) create(m metric.Meter) error {
	var errs []error
	for _, reg := range stats.MetricsIn(stats.InTelemetry) {
		h, err := newOTLPHist(m, reg)
		in.hists, errs = append(in.hists, h), append(errs, err)
	}
	var err error
	in.streams, err = m.Int64Counter("drip.streams", metric.WithUnit("{stream}"), metric.WithDescription("Measured streams by drip.stream.status and error.type"))
	errs = append(errs, err)
	in.stalls, err = m.Int64Counter("drip.stream.stalls", metric.WithUnit("{stall}"), metric.WithDescription("Gaps at or above the stall threshold"))
	errs = append(errs, err)
	return errors.Join(errs...)
}

// newOTLPHist is reg's histogram, named by the conventions (reg.OTel) or
// drip.stream.<key>. Times get Buckets from secondsView, and other
// figures CountBuckets unless their convention gives boundaries.
func newOTLPHist(m metric.Meter, reg stats.Metric) (otlpHist, error) {
	name := cmp.Or(reg.OTel, "drip.stream."+reg.Key)
	c := conventions[reg.OTel]
	opts := []metric.Float64HistogramOption{metric.WithUnit(cmp.Or(c.unit, otelUnits[reg.Unit])), metric.WithDescription(help(&reg))}
	if bounds := c.bounds; reg.Unit != "ms" {
		if bounds == nil {
			bounds = CountBuckets
		}
		opts = append(opts, metric.WithExplicitBucketBoundaries(bounds...))
	}
	var fixed []attribute.KeyValue
	if c.tokenType {
		fixed = append(fixed, attribute.String("gen_ai.token.type", strings.TrimSuffix(reg.Key, "_tokens")))
	}
	h, err := m.Float64Histogram(name, opts...)
	return otlpHist{m: reg, h: h, c: c, opt: metric.WithAttributes(fixed...)}, err
}

// Add pushes one finished record's figures (measured streams) and its span
// (every stream, with its phase).
func (o *OTLP) Add(r *record.Record) error {
	ctx := context.Background()
	attrs := genAIAttrs(r, o.prompts.label(r.PromptID))
	if o.tracer != nil {
		o.span(r, attrs)
	}
	if r.Phase == record.PhaseWarmup {
		return nil
	}
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	status := []attribute.KeyValue{attribute.String("drip.stream.status", label(r.Status))}
	if r.Status == record.StatusFailed && r.Error != nil {
		status = append(status, attribute.String("error.type", label(r.Error.Class)))
	}
	o.ins.streams.Add(ctx, 1, set, metric.WithAttributes(status...))
	failed := metric.WithAttributes(status[1:]...)
	for _, h := range o.ins.hists {
		opts := []metric.RecordOption{set, h.opt}
		if h.c.errorType {
			opts = append(opts, failed)
		}
		div := divisor(&h.m)
		for _, v := range h.m.Observations(r) {
			h.h.Record(ctx, v/div, opts...)
		}
	}
	if n := len(r.Stalls); n > 0 {
		o.ins.stalls.Add(ctx, int64(n), set)
	}
	return nil
}

// span is one stream as a client span on its own wall-clock times, stalls
// as events where they began.
func (o *OTLP) span(r *record.Record, attrs []attribute.KeyValue) {
	start := time.Unix(0, r.StartUnixNS)
	name := operationName(r.Format)
	if r.Model != "" {
		name += " " + label(r.Model)
	}
	_, sp := o.tracer.Start(context.Background(), name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attrs...), trace.WithAttributes(
			attribute.String("drip.phase", label(r.Phase)), attribute.Int("drip.seq", r.Seq), attribute.String("drip.run_id", label(r.RunID)),
			attribute.String("drip.stream.status", label(r.Status)), attribute.Int("gen_ai.usage.output_tokens", r.OutputTokens)))
	sp.SetAttributes(attribute.String("drip.prompt_id", label(r.PromptID))) // a span is one stream, so no cap
	if r.TTFTMS != nil {
		sp.SetAttributes(attribute.Float64("gen_ai.response.time_to_first_chunk", *r.TTFTMS/1000))
	}
	for _, st := range r.Stalls {
		sp.AddEvent("drip.stall", trace.WithTimestamp(start.Add(msDuration(st.AtMS))), trace.WithAttributes(
			attribute.Float64("drip.stall.gap_ms", st.GapMS), attribute.Bool("drip.stall.mid_sentence", st.MidSentence)))
	}
	if r.Status == record.StatusFailed && r.Error != nil {
		sp.SetAttributes(attribute.String("error.type", label(r.Error.Class)))
		sp.SetStatus(codes.Error, label(r.Error.Class))
	}
	sp.End(trace.WithTimestamp(start.Add(msDuration(r.DurationMS))))
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// genAIAttrs are the GenAI conventions' attributes of a stream, with
// drip's own beside them.
func genAIAttrs(r *record.Record, promptID string) []attribute.KeyValue {
	a := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", operationName(r.Format)),
		attribute.String("gen_ai.provider.name", label(providerName(r.Format))),
		attribute.String("gen_ai.request.model", label(r.Model)),
		attribute.String("drip.format", label(r.Format)),
		attribute.String("drip.prompt_id", promptID),
		attribute.String("drip.target", label(r.Target)),
	}
	if u, err := url.Parse(r.Target); err == nil && u.Hostname() != "" {
		a = append(a, attribute.String("server.address", label(u.Hostname())))
		if p := u.Port(); p != "" {
			a = append(a, attribute.String("server.port", label(p)))
		}
	}
	return a
}

// operationName is gen_ai.operation.name for a wire format.
func operationName(format string) string {
	switch format {
	case "openai-completions", "ollama-generate", "tgi":
		return "text_completion"
	case "gemini":
		return "generate_content"
	}
	return "chat"
}

// providerName is gen_ai.provider.name for a wire format, or the format
// itself where the conventions name no provider.
func providerName(format string) string {
	switch {
	case strings.HasPrefix(format, "openai-"):
		return "openai"
	case format == "anthropic":
		return "anthropic"
	case strings.HasPrefix(format, "bedrock-"):
		return "aws.bedrock"
	case format == "gemini":
		return "gcp.gemini"
	}
	return format
}

func (o *OTLP) noteErr(err error) {
	o.errMu.Lock()
	defer o.errMu.Unlock()
	o.errs++
	o.lastErr = err
}

// Close exports what is left and shuts the pipelines down. It reports
// exports that failed during the run too.
func (o *OTLP) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	errs := []error{o.mp.Shutdown(ctx)}
	if o.tp != nil {
		errs = append(errs, o.tp.Shutdown(ctx))
	}
	o.errMu.Lock()
	if o.errs > 0 {
		errs = append(errs, fmt.Errorf("%s during the run, the last: %w", stats.Count(o.errs, "export error"), o.lastErr))
	}
	o.errMu.Unlock()
	return errors.Join(errs...)
}
