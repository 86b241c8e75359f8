package stats

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

// newMetricsRecord is a complete stream whose frames give every new figure:
// headers at 20, a role frame at 50 (first event), content at 200 (2 tokens
// at once when counted), 300 and 500 ms, end at 600.
func newMetricsRecord(t *testing.T, counted bool) *record.Record {
	t.Helper()
	first := content(200, 1, "a")
	if counted {
		first.Tokens = 2
	}
	r := &record.Record{Phase: record.PhaseMeasure, Status: record.StatusComplete, HeadersMS: new(20.0), DurationMS: 600,
		Frames: []record.Frame{frame(50, 0, record.KindRole), first, content(300, 2, " b"), content(500, 3, " c."), frame(550, 4, record.KindEnd)}}
	derive(t, r, 250)
	return r
}

// Each new figure's definition over a record: the middle clock, first
// event, headers and the second token (a frame counts its own tokens when
// the format says, else one).
func TestNewMetricValues(t *testing.T) {
	for _, c := range []struct {
		key     string
		counted bool
		want    float64
	}{
		{"stream", false, 300}, {"first_event", false, 50}, {"headers", false, 20},
		{"tt2t", false, 300}, {"tt2t", true, 200},
	} {
		m, ok := MetricByKey(c.key)
		if !ok {
			t.Fatalf("no metric %q in the registry", c.key)
		}
		eq(t, c.key, m.Value(newMetricsRecord(t, c.counted)), c.want)
	}
	for _, key := range []string{"stream", "tt2t"} {
		m, _ := MetricByKey(key)
		null(t, key+" without content", m.Value(&record.Record{Frames: []record.Frame{frame(5, 0, record.KindRole)}}))
	}
}

// Every registry metric is in the summary's JSON, in its histograms when
// it has one, and a gate on it reads the summary's figure; the four new
// ones are everywhere.
func TestRegistryBuildsSummaryAndGates(t *testing.T) {
	a := NewAggregate(250)
	a.Add(newMetricsRecord(t, false))
	s := a.Summary(Workload{})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Metrics    map[string]Dist
		Histograms struct{ Metrics map[string]json.RawMessage }
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, m := range Registry {
		if _, ok := back.Metrics[m.JSON]; !ok {
			t.Errorf("summary JSON lacks metrics.%s", m.JSON)
		}
		if _, ok := back.Histograms.Metrics[m.JSON]; ok != (m.Out&InHistogram != 0) {
			t.Errorf("histograms.%s present %v, registry says %v", m.JSON, ok, m.Out&InHistogram != 0)
		}
		if m.Out&InGate == 0 {
			continue
		}
		g, err := ParseGate(m.Key + ".p50 > 0")
		if err != nil {
			t.Errorf("gate on %s: %v", m.Key, err)
			continue
		}
		if (g.Unit == "ms") != (m.Unit == "ms") {
			t.Errorf("gate on %s has unit %q, metric %q", m.Key, g.Unit, m.Unit)
		}
		got, want := g.Eval(&s).Value, s.Metrics[m.JSON].P50
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("gate on %s read %v, summary has %v", m.Key, num(got), num(want))
		}
	}
	for _, key := range []string{"stream", "first_event", "headers", "tt2t"} {
		if m, _ := MetricByKey(key); m.Out != everywhere || m.Clock == 0 {
			t.Errorf("%s: outputs %b clock %d, want every output and the clocks panel", key, m.Out, m.Clock)
		}
	}
}

// A gate names the new metrics like the old, with time units.
func TestGateOnNewMetrics(t *testing.T) {
	a := NewAggregate(250)
	a.Add(newMetricsRecord(t, false))
	s := a.Summary(Workload{})
	for expr, tripped := range map[string]bool{
		"stream.p95 > 0.2s": true, "first_event.max >= 50ms": true, "headers.p50 < 20": false, "tt2t.p99 > 301ms": false,
	} {
		g, err := ParseGate(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if r := g.Eval(&s); r.Tripped != tripped {
			t.Errorf("%s: tripped %v (%s), want %v", expr, r.Tripped, r.Message, tripped)
		}
	}
	if _, err := ParseGate("stream > 1ms"); err == nil || !strings.Contains(err.Error(), "stream.p95") {
		t.Errorf("a gate on the bare distribution: %v", err)
	}
}

// The registry's keys and JSON names are unique: one entry, one metric.
func TestRegistryUnique(t *testing.T) {
	var keys, names []string
	for _, m := range Registry {
		keys, names = append(keys, m.Key), append(names, m.JSON)
	}
	for _, l := range [][]string{keys, names} {
		s := slices.Clone(l)
		slices.Sort(s)
		if len(slices.Compact(s)) != len(l) {
			t.Errorf("duplicates in %v", l)
		}
	}
}

func num(v *float64) any {
	if v == nil {
		return "null"
	}
	return *v
}

// TestMetricsDocMapsEveryName: docs/metrics.md's table gives each
// metric's JSON key, gate name, --slo term, report row and TUI label as
// the registry and the SLO's metrics do, and the single figures' table
// each gate name with its JSON path.
func TestMetricsDocMapsEveryName(t *testing.T) {
	raw, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := strings.Cut(string(raw), "## One metric, its names in drip")
	for _, m := range Registry {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(m.JSON) + "` \\|.*$").FindString(doc)
		if row == "" {
			t.Errorf("docs/metrics.md has no row for %s", m.JSON)
			continue
		}
		want := []string{}
		if m.Out&InGate != 0 {
			want = append(want, "`"+m.Key+".pNN`")
		}
		if m.Out&InText != 0 {
			want = append(want, "`"+m.Label+"`")
		}
		if m.ClockLabel != "" {
			want = append(want, "`"+m.ClockLabel+"`")
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("docs/metrics.md's row for %s lacks %s: %s", m.JSON, w, row)
			}
		}
		if cells := strings.Split(row, " | "); len(cells) < 3 || cells[2] != sloColumn(m.Key) {
			t.Errorf("docs/metrics.md's --slo column for %s is not %s: %s", m.JSON, sloColumn(m.Key), row)
		}
	}
	for key := range sloStreamMetrics {
		if _, inTable := MetricByKey(key); !inTable && !strings.Contains(doc, "`"+key+"<") {
			t.Errorf("docs/metrics.md does not say an --slo term takes %s", key)
		}
	}
	for name, sc := range scalars {
		path := "`" + sc.json + "`"
		if sc.json == "" {
			path = "computed"
		}
		if !strings.Contains(doc, "| `"+name+"` | "+path) {
			t.Errorf("docs/metrics.md does not map the gate %s to %s", name, path)
		}
	}
}

// sloColumn is what docs/metrics.md's --slo column says of a registry
// metric: the name a term takes, or — when no term takes it.
func sloColumn(key string) string {
	switch {
	case key == "gap":
		return "`gap.pNN`"
	case sloStreamMetrics[key].get != nil:
		return "`" + key + "`"
	}
	return "—"
}
