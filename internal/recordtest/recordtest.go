// Package recordtest gives view and comparison tests real records. They are
// files drip wrote against the fixture server, and fixture scenarios decoded
// through the probe at the fixture's own times (the same on every machine).
package recordtest

import (
	"os"
	"path/filepath"
	"strconv"
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
		recs, skipped, err := record.ReadAll(f, stats.Rederive)
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

// Hops is one stream of mid-sentence-stall at two vantage points. The
// relay's record is drip record's beside the server, at the fixture's own
// times. The client's is seen through a path that adds 2 ms to every
// frame. The path holds content frames 6 to 10 back to let them go with
// 11 in one read, 430 ms late, a freeze of 580 ms the path made. It holds
// frames 20 to 29 to let them go with 30, 200 ms later still, a freeze of
// 1.18 s holding the server's 700 ms stall, which both own. The server's
// 300 ms stall reaches the client as it was.
func Hops(t testing.TB) (client, relay *record.Record) {
	t.Helper()
	relay = Scenario(t, "mid-sentence-stall", &record.Record{V: record.RecordVersion, RunID: "relay0", Seq: 4, Phase: record.PhaseMeasure})
	relay.Exchange = &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true,
		Header: map[string][]string{record.StreamHeader: {"c11e47-0"}}}
	client = Scenario(t, "mid-sentence-stall", &record.Record{V: record.RecordVersion, RunID: "c11e47", Seq: 0, Phase: record.PhaseMeasure})
	var content []int
	for i := range client.Frames {
		if client.Frames[i].IsContent() {
			content = append(content, i)
		}
		client.Frames[i].TMS += 2
		if n := len(content); n > 20 {
			client.Frames[i].TMS += 630
		} else if n > 6 {
			client.Frames[i].TMS += 430
		}
	}
	for _, held := range [][2]int{{6, 11}, {20, 30}} {
		last := client.Frames[content[held[1]]]
		for _, i := range content[held[0]:held[1]] {
			client.Frames[i].TMS, client.Frames[i].Read = last.TMS, last.Read
		}
	}
	client.DurationMS += 632
	if err := stats.Derive(client, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	return client, relay
}

// Shapes of a client and relay pair for HopsPair.
const (
	// HopsEven is a relay that saw a frame every 25 ms, one a read, and a
	// client that got each 5 s later on its clock, one a read too.
	HopsEven = "even"
	// HopsAdversarial is a relay that saw the frames 300 ms apart (every
	// gap a stall) and a client that got the first, then every other
	// frame in one read after a long silence. One client stall holds
	// every relay stall.
	HopsAdversarial = "adversarial"
)

// HopsPair is a client record and its relay's of n content frames in
// shape, matched by the id "run1-0". drip hops' cost is measured on it.
func HopsPair(t testing.TB, shape string, n int) (client, relay *record.Record) {
	t.Helper()
	spacing := 25.0
	if shape == HopsAdversarial {
		spacing = 300
	}
	relay = &record.Record{V: record.RecordVersion, RunID: "r", Phase: record.PhaseMeasure, Status: record.StatusComplete, HeadersMS: new(1.0),
		Exchange: &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, Header: map[string][]string{record.StreamHeader: {"run1-0"}}}}
	client = &record.Record{V: record.RecordVersion, RunID: "run1", Phase: record.PhaseMeasure, Status: record.StatusComplete, HeadersMS: new(1.0)}
	last := 180 + spacing*float64(n-1)
	for i := range n {
		text := "w" + strconv.Itoa(i) + " "
		rt, ct, cread := 180+spacing*float64(i), 180+spacing*float64(i)+5000, i
		if shape == HopsAdversarial && i > 0 {
			ct, cread = last+5000, 1
		}
		relay.Frames = append(relay.Frames, record.Frame{TMS: rt, Read: i, Bytes: len(text), Kind: record.KindContent, Text: text})
		client.Frames = append(client.Frames, record.Frame{TMS: ct, Read: cread, Bytes: len(text), Kind: record.KindContent, Text: text})
	}
	for _, r := range []*record.Record{client, relay} {
		end := r.Frames[n-1]
		r.Frames = append(r.Frames, record.Frame{TMS: end.TMS, Read: end.Read, Kind: record.KindEnd})
		r.DurationMS = end.TMS + 1
		if err := stats.Derive(r, stats.DefaultStall); err != nil {
			t.Fatal(err)
		}
	}
	return client, relay
}
