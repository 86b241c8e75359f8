package telemetry

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
)

// Options are the exporters a run asks for (drip run's --metrics-addr,
// --linger, --otlp, --otlp-traces), with what they label the series by.
type Options struct {
	MetricsAddr string        // serve Prometheus /metrics here, or not at all when empty
	Linger      time.Duration // keep /metrics up this long after the run
	OTLP        string        // push OTLP/HTTP to this base URL, or to OTEL_EXPORTER_OTLP_ENDPOINT when empty
	OTLPTraces  bool          // also push a span per stream
	Host        string
	Labels      map[string]string
	Version     string // drip's, on the OTLP resource
}

// PushesOTLP is whether the options push OTLP, through --otlp or the
// standard environment variable.
func (o Options) PushesOTLP() bool { return o.OTLP != "" || OTLPFromEnv() }

// Exporter is an exporter as a run's sink. Add takes each finished
// record, and Close runs once after the report.
type Exporter struct {
	Add   func(*record.Record) error
	Close func() error
}

// OpenPrometheus serves /metrics on MetricsAddr and says where on stderr.
// Its Close keeps it up Linger more for a last scrape (saying so), and
// fails when it cannot shut down.
func (o Options) OpenPrometheus(ctx context.Context, stderr io.Writer) (Exporter, error) {
	p, err := NewPrometheus(o.MetricsAddr, o.Host, o.Labels)
	if err != nil {
		return Exporter{}, fmt.Errorf("--metrics-addr: %w", err)
	}
	fmt.Fprintf(stderr, "drip: metrics on http://%s/metrics\n", p.Addr())
	return Exporter{Add: p.Add, Close: func() error {
		if o.Linger > 0 {
			fmt.Fprintf(stderr, "drip: /metrics stays up %s more (--linger)\n", o.Linger)
		}
		return p.Close(ctx, o.Linger)
	}}, nil
}

// OpenOTLP starts pushing over OTLP. An error is its configuration's,
// with header values masked. Its Close pushes what is left. A failed push
// is said on stderr and is not the run's failure, because the collector
// may be down while the records are safe, so Close returns nil.
func (o Options) OpenOTLP(ctx context.Context, stderr io.Writer) (Exporter, error) {
	x, err := NewOTLP(ctx, OTLPConfig{Endpoint: o.OTLP, Traces: o.OTLPTraces, Host: o.Host, Labels: o.Labels, Version: o.Version})
	if err != nil {
		return Exporter{}, fmt.Errorf("--otlp: %s", HeaderSecrets().String(err.Error()))
	}
	return Exporter{Add: x.Add, Close: func() error {
		if err := x.Close(context.WithoutCancel(ctx)); err != nil {
			for _, line := range errorLines(err) {
				fmt.Fprintf(stderr, "drip: --otlp: %s\n", line)
			}
		}
		return nil
	}}, nil
}

// errorLine bounds the line an OTLP error is said in. The exporter
// copies up to 4 MiB of a receiver's rejection body into its error.
const errorLine = 300

// errorLines says an OTLP close error a line per error it joined. A
// receiver's body is its text, not ours. The exporter's header values are
// masked in it (a collector may echo its credential), its newlines folded,
// its control sequences removed, and it is cut to errorLine bytes.
func errorLines(err error) []string {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	mask := HeaderSecrets()
	lines := make([]string, 0, len(errs))
	for _, e := range errs {
		lines = append(lines, textfmt.CutBytes(sanitize.Line(mask.String(e.Error())), errorLine))
	}
	return lines
}
