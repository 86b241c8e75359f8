package telemetry_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/telemetry"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// halfDuration is a metric no output knows of: appended to the registry,
// it must reach every output with no other edit (issue 32).
var halfDuration = stats.Metric{Key: "half_duration", JSON: "half_duration_ms", Label: "half duration ms", Unit: "ms",
	Better: stats.LowerIsBetter, Definition: "half of duration (a test's metric)",
	Out:   stats.InGate | stats.InCompare | stats.InText | stats.InCSV | stats.InHistogram | stats.InTelemetry,
	Value: func(r *record.Record) *float64 { v := r.DurationMS / 2; return &v }}

// A metric added to the registry alone is in the summary (JSON, histograms
// and text), a gate, the CSV, compare, /metrics and the OTLP push, with
// the summary's figures.
func TestARegistryEntryReachesEveryOutput(t *testing.T) {
	saved := stats.Registry
	stats.Registry = append(stats.Registry[:len(saved):len(saved)], halfDuration)
	t.Cleanup(func() { stats.Registry = saved })
	recs := records(t)
	s := summary(recs)
	d := s.Metrics[halfDuration.JSON]
	if d.N != 5 || d.P50 == nil {
		t.Fatalf("summary's %s: n %d p50 %v, want the 5 measured streams", halfDuration.JSON, d.N, d.P50)
	}
	inSummary(t, &s)
	inGateAndCSV(t, &s, recs[1])
	inCompare(t, recs)
	scraped := scrapeRun(t, recs)
	if got := scraped["drip_half_duration_seconds_count"]; got != float64(d.N) {
		t.Errorf("drip_half_duration_seconds_count = %v, want the summary's n %d", got, d.N)
	}
	if got, want := scraped["drip_half_duration_seconds_sum"], *d.Mean*float64(d.N)/1000; !near(got, want) {
		t.Errorf("drip_half_duration_seconds_sum = %v, want %v", got, want)
	}
	pushed := pushOTLP(t, recs, false).lastPoints(t)
	if got := pushed["drip.stream.half_duration"]; got != float64(d.N) {
		t.Errorf("OTLP drip.stream.half_duration count = %v, want the summary's n %d", got, d.N)
	}
}

func inSummary(t *testing.T, s *stats.Summary) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Metrics    map[string]stats.Dist
		Histograms struct{ Metrics map[string]json.RawMessage }
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Metrics[halfDuration.JSON].N != s.Metrics[halfDuration.JSON].N || back.Histograms.Metrics[halfDuration.JSON] == nil {
		t.Errorf("summary JSON lacks metrics or histograms .%s", halfDuration.JSON)
	}
	var text bytes.Buffer
	report.Text(&text, s)
	if !strings.Contains(text.String(), "\n"+halfDuration.Label+" ") {
		t.Errorf("text report lacks the %q row:\n%s", halfDuration.Label, text.String())
	}
}

func inGateAndCSV(t *testing.T, s *stats.Summary, r *record.Record) {
	t.Helper()
	g, err := stats.ParseGate("half_duration.p50 < 1h") // --fail-if: trips when it holds
	if err != nil {
		t.Fatal(err)
	}
	if res := g.Eval(s); res.Value == nil || *res.Value != *s.Metrics[halfDuration.JSON].P50 || !res.Tripped {
		t.Errorf("gate half_duration.p50 read %+v, summary's p50 %v", res, *s.Metrics[halfDuration.JSON].P50)
	}
	var b bytes.Buffer
	c, err := report.NewCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head, row := rows[0], rows[1]
	if i := len(head) - 1; head[i] != halfDuration.JSON || row[i] != fmt.Sprintf("%.3f", *halfDuration.Value(r)) {
		t.Errorf("CSV's last column %s = %q, want %s = %v", head[i], row[i], halfDuration.JSON, *halfDuration.Value(r))
	}
}

func inCompare(t *testing.T, recs []*record.Record) {
	t.Helper()
	c, err := compare.New([]compare.Input{{Label: "A", Records: recs}, {Label: "B", Records: recs}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range c.Sections {
		if sec.Key == halfDuration.Key && sec.Title == halfDuration.Label {
			return
		}
	}
	t.Errorf("compare has no %q section", halfDuration.Label)
}

// pushOTLP pushes recs (and their spans when traces) and returns the
// receiver, locked until the test ends.
func pushOTLP(t *testing.T, recs []*record.Record, traces bool) *receiver {
	t.Helper()
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	o, err := telemetry.NewOTLP(context.Background(), telemetry.OTLPConfig{Endpoint: srv.URL + "/otlp", Traces: traces,
		Host: "h1", Labels: map[string]string{"region": "eu"}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		o.Add(r)
	}
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	t.Cleanup(rc.mu.Unlock)
	return rc
}
