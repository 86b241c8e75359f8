package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/cliconv"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/telemetry"
	"github.com/driplab/drip/probe"
)

// exportFlags send a run's figures to Prometheus and OpenTelemetry as it
// goes on.
type exportFlags struct{ telemetry.Options }

func (f *exportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.MetricsAddr, "metrics-addr", "", "serve Prometheus /metrics on this address while the run goes on, e.g. 127.0.0.1:9464")
	fs.DurationVar(&f.Linger, "linger", 0, "keep /metrics up this long after the run, for a last scrape (Ctrl-C cuts it short)")
	fs.StringVar(&f.OTLP, "otlp", "", "push metrics over OTLP/HTTP to this base URL (…/v1/metrics); default: OTEL_EXPORTER_OTLP_ENDPOINT when set")
	fs.BoolVar(&f.OTLPTraces, "otlp-traces", false, "also push one span per stream, stalls as span events (…/v1/traces)")
}

// check refuses flags that would do nothing or cannot work.
func (f *exportFlags) check() error {
	switch {
	case f.Linger < 0:
		return usageErr("--linger must not be negative")
	case f.Linger > 0 && f.MetricsAddr == "":
		return usageErr("--linger keeps /metrics up: add --metrics-addr")
	case f.OTLPTraces && !f.PushesOTLP():
		return usageErr("--otlp-traces pushes over OTLP: add --otlp URL or set OTEL_EXPORTER_OTLP_ENDPOINT")
	case f.MetricsAddr != "":
		if err := cliconv.CheckAddr("--metrics-addr", f.MetricsAddr); err != nil {
			return usageErr("%v", err)
		}
	}
	if f.PushesOTLP() {
		if err := telemetry.CheckProtocol(); err != nil {
			return usageErr("--otlp: %v", err)
		}
	}
	return nil
}

// open starts the exporters the flags ask for, as sinks of the run's
// records, closed after the report. /metrics that cannot be served is
// exit 3, and an OTLP setup that cannot work is a usage error.
func (f *exportFlags) open(ctx context.Context, stderr io.Writer, plan *probe.Plan) ([]pipeline.Sink, error) {
	o := f.Options
	o.Host, o.Labels, o.Version = plan.Host, plan.Labels, version
	var sinks []pipeline.Sink
	if o.MetricsAddr != "" {
		p, err := o.OpenPrometheus(ctx, stderr)
		if err != nil {
			return nil, cannotErr(err)
		}
		sinks = append(sinks, pipeline.Sink{Name: "--metrics-addr", Write: p.Add, Close: p.Close})
	}
	if o.PushesOTLP() {
		x, err := o.OpenOTLP(ctx, stderr)
		if err != nil {
			for _, s := range sinks {
				s.Close()
			}
			return nil, usageErr("%v", err)
		}
		sinks = append(sinks, pipeline.Sink{Name: "--otlp", Write: x.Add, Close: x.Close})
	}
	return sinks, nil
}
