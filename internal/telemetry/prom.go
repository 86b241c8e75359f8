// Package telemetry sends a run's figures to the rest of a fleet's telemetry
// as the run goes on, through a Prometheus /metrics endpoint and OTLP push
// (metrics and, optionally, one span per stream). Both are sinks on drip
// run's record pipeline. They see each record as it ends, as --out does,
// and count what the --json summary counts, so the series and the summary
// agree. As docs/records.md defines them, warmup is left out, and e2e, ITL
// and tokens come from completed streams only.
package telemetry

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Buckets are the classic histogram boundaries in seconds, shared by the
// Prometheus and OTLP histograms. They run from 1 ms to past 10 minutes,
// each BucketFactor times the last. A quantile read from them
// (histogram_quantile) lies in the bucket of the sample at its rank, so
// it is within a factor BucketFactor of the samples either side of
// drip's own percentile.
var Buckets = prometheus.ExponentialBuckets(0.001, BucketFactor, 62)

// BucketFactor is the ratio between neighbouring bucket boundaries.
const BucketFactor = 1.25

// MaxPromptLabels is how many distinct prompt ids get a series of their
// own. Streams of further prompts are labelled OtherPrompts. A prompt file
// of 1,000 ids would otherwise make 1,000 series of 62 buckets per
// histogram, which costs the scraper and drip's own /metrics handler more
// than the run is worth.
const MaxPromptLabels = 32

// OtherPrompts is the prompt_id of streams past MaxPromptLabels.
const OtherPrompts = "_other"

// promptLabels hands out prompt id labels, capped at MaxPromptLabels and
// sanitised (label). Its owner calls it from one goroutine (the record
// sink).
type promptLabels map[string]bool

func (p promptLabels) label(id string) string {
	if p[id] {
		return label(id)
	}
	if len(p) >= MaxPromptLabels {
		return OtherPrompts
	}
	p[id] = true
	return label(id)
}

// label is a value as a label or attribute carries it, in one line with
// no control byte and valid UTF-8 (sanitize.Line). A prompt id, a model or
// a target comes from a file or a server. An OSC 52 in it would reach
// every scrape and every collector, and whoever read them on a terminal.
func label(v string) string { return sanitize.Line(v) }

// labels is every value of m sanitised (label).
func labels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = label(v)
	}
	return out
}

// streamLabels are the labels of every series that vary per record. The
// host and the user's labels are constant over a run.
var streamLabels = []string{"target", "model", "format", "prompt_id"}

// Prometheus is a /metrics endpoint with the run's figures.
type Prometheus struct {
	reg                  *prometheus.Registry
	hists                []promHist
	streams              *prometheus.CounterVec
	stalls, outputTokens *prometheus.CounterVec
	srv                  *http.Server
	ln                   net.Listener
	prompts              promptLabels
}

// NewPrometheus listens on addr (host:port, where port 0 picks one) and serves
// /metrics. host and labels are constant labels of every series.
func NewPrometheus(addr, host string, userLabels map[string]string) (*Prometheus, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	cl := prometheus.Labels{"host": label(host)}
	maps.Copy(cl, labels(userLabels))
	p := &Prometheus{
		reg: prometheus.NewRegistry(), prompts: promptLabels{}, hists: promHists(cl),
		streams: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "drip", Name: "streams_total", ConstLabels: cl,
			Help: "Measured streams by status and error class (error_class is empty unless failed)."}, append(slices.Clone(streamLabels), "status", "error_class")),
		stalls: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "drip", Name: "stalls_total", ConstLabels: cl,
			Help: "Gaps at or above the stall threshold, measured streams."}, streamLabels),
		outputTokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "drip", Name: "output_tokens_total", ConstLabels: cl,
			Help: "Output tokens of completed streams (the summary's throughput.output_tokens)."}, streamLabels),
	}
	for _, h := range p.hists {
		p.reg.MustRegister(h.vec)
	}
	p.reg.MustRegister(p.streams, p.stalls, p.outputTokens)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(p.reg, promhttp.HandlerOpts{}))
	p.srv, p.ln = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln
	go p.srv.Serve(ln)
	return p, nil
}

// Addr is the address /metrics is served on.
func (p *Prometheus) Addr() string { return p.ln.Addr().String() }

// Add counts one finished record. Warmup records are left out.
func (p *Prometheus) Add(r *record.Record) error {
	if r.Phase == record.PhaseWarmup {
		return nil
	}
	lv := []string{label(r.Target), label(r.Model), label(r.Format), p.prompts.label(r.PromptID)}
	class := ""
	if r.Status == record.StatusFailed && r.Error != nil {
		class = r.Error.Class
	}
	p.streams.WithLabelValues(append(slices.Clone(lv), label(r.Status), label(class))...).Inc()
	for _, h := range p.hists {
		o, div := h.vec.WithLabelValues(lv...), divisor(&h.m)
		for _, v := range h.m.Observations(r) {
			o.Observe(v / div)
		}
	}
	p.stalls.WithLabelValues(lv...).Add(float64(len(r.Stalls)))
	if r.Complete {
		p.outputTokens.WithLabelValues(lv...).Add(float64(r.OutputTokens))
	}
	return nil
}

// A promHist is a registry metric's histogram on /metrics.
type promHist struct {
	m   stats.Metric
	vec *prometheus.HistogramVec
}

// promHists are the registry's InTelemetry metrics as histograms (a metric
// added there is a series with no other edit), named
// drip_<key>_seconds for times and drip_<key> otherwise, with const labels
// cl on every series.
func promHists(cl prometheus.Labels) []promHist {
	var out []promHist
	for _, m := range stats.MetricsIn(stats.InTelemetry) {
		name, buckets := m.Key, CountBuckets
		if m.Unit == "ms" {
			name, buckets = m.Key+"_seconds", Buckets
		}
		out = append(out, promHist{m, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "drip", Name: name, Help: help(&m), ConstLabels: cl, Buckets: buckets,
			// Native histograms too, for scrapers that ask for them.
			NativeHistogramBucketFactor: 1.1,
		}, streamLabels)})
	}
	return out
}

// Close keeps serving for linger (a last scrape after the run), cut short
// when ctx is done, then shuts the server down.
func (p *Prometheus) Close(ctx context.Context, linger time.Duration) error {
	if linger > 0 {
		t := time.NewTimer(linger)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
