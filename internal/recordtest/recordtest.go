// Package recordtest gives view and comparison tests real records: files
// drip wrote against the fixture server, and fixture scenarios decoded
// through the probe at the fixture's own times (the same on every machine).
package recordtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Inputs reads the record files names in dir, each a compare input
// labelled and sourced by its name.
func Inputs(t testing.TB, dir string, names ...string) []compare.Input {
	t.Helper()
	var in []compare.Input
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		recs, skipped, err := probe.ReadRecords(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, compare.Input{Label: name, Source: name, Records: recs, Skipped: skipped})
	}
	return in
}

// Scenario fills rec (its sequence, target, headers as the caller set
// them) with a fixture scenario streamed in OpenAI chat format, read by
// read at the times the fixture schedules.
func Scenario(t testing.TB, scenario string, rec *record.Record) *record.Record {
	t.Helper()
	f := adapters.Lookup("openai-chat")
	reads, at, err := fixtures.Render(f.Name, fixtures.Lookup(scenario), scenario)
	if err != nil {
		t.Fatal(err)
	}
	times := make([]float64, len(at))
	for i, d := range at {
		times[i] = float64(d) / float64(time.Millisecond)
	}
	rec.Model = scenario
	if _, err := probe.Replay(f, reads, times, stats.DefaultStall, rec); err != nil {
		t.Fatal(err)
	}
	return rec
}
