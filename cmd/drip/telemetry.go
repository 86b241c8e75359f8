package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/telemetry"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
)

// exportFlags send a run's figures to Prometheus and OpenTelemetry as it
// goes on.
type exportFlags struct {
	metricsAddr string
	linger      time.Duration
	otlp        string
	otlpTraces  bool
}

func (f *exportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus /metrics on this address while the run goes on, e.g. 127.0.0.1:9464")
	fs.DurationVar(&f.linger, "linger", 0, "keep /metrics up this long after the run, for a last scrape (Ctrl-C cuts it short)")
	fs.StringVar(&f.otlp, "otlp", "", "push metrics over OTLP/HTTP to this base URL (…/v1/metrics); default: OTEL_EXPORTER_OTLP_ENDPOINT when set")
	fs.BoolVar(&f.otlpTraces, "otlp-traces", false, "also push one span per stream, stalls as span events (…/v1/traces)")
}

// check refuses flags that would do nothing or cannot work.
func (f *exportFlags) check() error {
	switch {
	case f.linger < 0:
		return usageErr("--linger must not be negative")
	case f.linger > 0 && f.metricsAddr == "":
		return usageErr("--linger keeps /metrics up: add --metrics-addr")
	case f.otlpTraces && f.otlp == "" && !telemetry.OTLPFromEnv():
		return usageErr("--otlp-traces pushes over OTLP: add --otlp URL or set OTEL_EXPORTER_OTLP_ENDPOINT")
	case f.metricsAddr != "":
		if err := checkAddr("--metrics-addr", f.metricsAddr); err != nil {
			return err
		}
	}
	if f.otlp != "" || telemetry.OTLPFromEnv() {
		if err := telemetry.CheckProtocol(); err != nil {
			return usageErr("--otlp: %v", err)
		}
	}
	return nil
}

// open starts the exporters the flags ask for, as sinks of the run's
// records. They are closed after the report: /metrics lingers, OTLP
// pushes what is left. A failed OTLP push is said on stderr and does not
// change the run's exit code (the collector may be down; the records are
// safe); /metrics that cannot shut down is a failed close.
func (f *exportFlags) open(ctx context.Context, stderr io.Writer, plan *probe.Plan) ([]pipeline.Sink, error) {
	var sinks []pipeline.Sink
	if f.metricsAddr != "" {
		p, err := telemetry.NewPrometheus(f.metricsAddr, plan.Host, plan.Labels)
		if err != nil {
			return nil, cannotErr(fmt.Errorf("--metrics-addr: %w", err))
		}
		fmt.Fprintf(stderr, "drip: metrics on http://%s/metrics\n", p.Addr())
		sinks = append(sinks, pipeline.Sink{Name: "--metrics-addr", Write: p.Add, Close: func() error {
			if f.linger > 0 {
				fmt.Fprintf(stderr, "drip: /metrics stays up %s more (--linger)\n", f.linger)
			}
			return p.Close(ctx, f.linger)
		}})
	}
	if f.otlp != "" || telemetry.OTLPFromEnv() {
		o, err := telemetry.NewOTLP(ctx, telemetry.OTLPConfig{Endpoint: f.otlp, Traces: f.otlpTraces, Host: plan.Host, Labels: plan.Labels, Version: version})
		if err != nil {
			for _, s := range sinks {
				s.Close()
			}
			return nil, usageErr("--otlp: %s", telemetry.HeaderSecrets().String(err.Error()))
		}
		sinks = append(sinks, pipeline.Sink{Name: "--otlp", Write: o.Add, Close: func() error {
			if err := o.Close(context.WithoutCancel(ctx)); err != nil {
				for _, line := range otlpErrorLines(err) {
					fmt.Fprintf(stderr, "drip: --otlp: %s\n", line)
				}
			}
			return nil
		}})
	}
	return sinks, nil
}

// otlpErrorLine bounds the line an OTLP error is said in: the exporter
// copies up to 4 MiB of a receiver's rejection body into its error.
const otlpErrorLine = 300

// otlpErrorLines says an OTLP close error a line per error it joined. A
// receiver's body is its text, not ours: the exporter's header values
// masked (a collector that echoes its credential), its newlines folded,
// its control sequences gone, cut to otlpErrorLine bytes.
func otlpErrorLines(err error) []string {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	mask := telemetry.HeaderSecrets()
	lines := make([]string, 0, len(errs))
	for _, e := range errs {
		lines = append(lines, textfmt.CutBytes(sanitize.Line(mask.String(e.Error())), otlpErrorLine))
	}
	return lines
}
