package stats

import (
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

// burstRecord is a complete stream of 40 content frames that came in 8
// reads of 5, 20 ms apart: the bursts rule's shape, paced, with the OS's
// figures cpu (nil: none).
func burstRecord(t *testing.T, seq int, cpu *record.ClientCPU) *record.Record {
	r := &record.Record{Seq: seq, Phase: record.PhaseMeasure, PromptID: "p", HTTPStatus: 200, DurationMS: 160, ClientCPU: cpu}
	for i := range 40 {
		r.Frames = append(r.Frames, content(10+float64(i/5)*20, i/5, "w "))
	}
	r.Frames = append(r.Frames, record.Frame{TMS: 155, Read: 8, Kind: record.KindEnd})
	derive(t, r, DefaultStall)
	return r
}

// TestStarvedClientKeepsITL: a stream whose process waited runnable for a
// core past the rule is not buffered by its bursts (excused_rule says
// which rule it met) and keeps its ITL; one under the rule is buffered.
func TestStarvedClientKeepsITL(t *testing.T) {
	pressure := 97.0
	starved := burstRecord(t, 0, &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 24, PressurePct: &pressure})
	if starved.Buffered || starved.ITLMS == nil || !starved.ClientCPU.Starved || starved.ClientCPU.ExcusedRule != DeliveryBursts {
		t.Errorf("starved: buffered %v itl %v client %+v; want not buffered, ITL kept, excused bursts", starved.Buffered, starved.ITLMS, starved.ClientCPU)
	}
	fed := burstRecord(t, 1, &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 1.5})
	if !fed.Buffered || fed.ITLMS != nil || fed.ClientCPU.Starved || fed.ClientCPU.ExcusedRule != "" {
		t.Errorf("fed: buffered %v itl %v client %+v; want buffered by bursts", fed.Buffered, fed.ITLMS, fed.ClientCPU)
	}
	// Starved, but the 20 ms silences are longer than its 12 ms of waiting:
	// something on the way held the content.
	held := burstRecord(t, 2, &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 12})
	if !held.Buffered || !held.ClientCPU.Starved || held.ClientCPU.ExcusedRule != "" {
		t.Errorf("held: buffered %v client %+v; want buffered, starved, nothing excused", held.Buffered, held.ClientCPU)
	}
	// A whole answer held, then read late: 4 reads (the buffer doubling)
	// spread 3 ms by the reader's own delays, however long it waited.
	blob := &record.Record{Seq: 3, Phase: record.PhaseMeasure, PromptID: "p", HTTPStatus: 200, DurationMS: 810,
		ClientCPU: &record.ClientCPU{WindowMS: 810, MaxThreadWaitMS: 90}}
	for i := range 55 {
		blob.Frames = append(blob.Frames, content(800+float64(i/14), i/14, "w "))
	}
	blob.Frames = append(blob.Frames, record.Frame{TMS: 805, Read: 3, Kind: record.KindEnd})
	derive(t, blob, DefaultStall)
	if !blob.Buffered || blob.ClientCPU.ExcusedRule != "" {
		t.Errorf("a held answer read late: buffered %v client %+v; want buffered, nothing excused", blob.Buffered, blob.ClientCPU)
	}
}

// TestClientLimitedFromTheOS: a run whose streams had a starved client is
// client-limited with the OS's figures and never proxy-buffering; the same
// bursts with a fed client, or silences longer than the client waited,
// are proxy-buffering; without the OS's figures
// the summary says the check was not available.
func TestClientLimitedFromTheOS(t *testing.T) {
	pressure, steal := 97.0, 0.0
	run := func(cpu func() *record.ClientCPU) Summary {
		agg := NewAggregate(DefaultStall)
		for i := range 10 {
			agg.Add(burstRecord(t, i, cpu()))
		}
		return agg.Summary(Workload{})
	}
	shapes := func(s Summary) map[string]string {
		m := map[string]string{}
		for _, d := range s.Diagnosis {
			m[d.Shape] = d.Evidence
		}
		return m
	}
	busy := shapes(run(func() *record.ClientCPU {
		return &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 24, PressurePct: &pressure, StealPct: &steal}
	}))
	ev, ok := busy[ShapeClientLimited]
	if !ok || busy[ShapeProxyBuffering] != "" {
		t.Fatalf("starved client: shapes %v, want client-limited and no proxy-buffering", busy)
	}
	for _, want := range []string{"10 of 10 streams", "run-queue wait p50 24 ms (30% of the window)", "CPU pressure p50 97%", "steal p50 0%", "/proc/self/task/*/schedstat"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence %q lacks %q", ev, want)
		}
	}
	for name, wait := range map[string]float64{"fed": 0.2, "starved under longer silences": 12} {
		got := shapes(run(func() *record.ClientCPU { return &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: wait} }))
		if _, ok := got[ShapeClientLimited]; ok || got[ShapeProxyBuffering] == "" {
			t.Errorf("%s client: shapes %v, want proxy-buffering, no client-limited", name, got)
		}
	}
	// 3 of 10 stay buffered (silences longer than the wait), fewer than
	// the 10 starved: the client's starving outweighs them.
	n := 0
	mixed := shapes(run(func() *record.ClientCPU {
		n++
		if n%10 < 3 {
			return &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 12}
		}
		return &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 24}
	}))
	if _, ok := mixed[ShapeClientLimited]; !ok || mixed[ShapeProxyBuffering] != "" {
		t.Errorf("mostly starved client, 3 of 10 unexplained: shapes %v, want client-limited only", mixed)
	}
	if none := run(func() *record.ClientCPU { return nil }); none.Client != nil {
		t.Errorf("nothing sampled: client %+v, want it absent", none.Client)
	}
}

// A live run whose runtime sampled its scheduling latency, with no OS
// figures, says the OS's check was not available; a file read back with
// neither, and a relay's exchanges (drip record) whatever they hold, have
// no client at all.
func TestClientOSNotAvailableOnlyBesideTheRuntimesFigures(t *testing.T) {
	live := NewAggregate(DefaultStall)
	live.SetRun(RunStats{SchedLatency: NewDist([]float64{0.1, 0.2})})
	live.Add(burstRecord(t, 0, nil))
	if c := live.Summary(Workload{}).Client; c == nil || c.OS == nil || c.OS.Available || !strings.Contains(c.OS.Note, "not available") {
		t.Errorf("live, no OS figures: client %+v, want os.available false with a note", c)
	}
	file := NewAggregate(DefaultStall) // a file read back: OS figures, no runtime's
	file.Add(burstRecord(t, 0, &record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 24}))
	if c := file.Summary(Workload{}).Client; c == nil || c.OS == nil || c.BoundMS != nil || c.SchedLatency.N != 0 {
		t.Errorf("a file with OS figures: client %+v, want os alone, bound_ms null", c)
	}
	relay := NewAggregate(DefaultStall)
	for i, cpu := range []*record.ClientCPU{nil, {WindowMS: 80, MaxThreadWaitMS: 24}} {
		r := burstRecord(t, i, cpu)
		r.Exchange = &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true}
		relay.Add(r)
	}
	if c := relay.Summary(Workload{}).Client; c != nil {
		t.Errorf("a relay's exchanges: client %+v, want it absent", c)
	}
}

// A starved client does not hide a proxy's stutter: freezes at an interval
// outnumbering the starved streams are the proxy's, whatever the client
// waited; with fewer of them the run is client-limited.
func TestStarvedClientLeavesStutterToTheProxy(t *testing.T) {
	for _, tc := range []struct {
		stutter, starved int
		want             string
	}{{4, 2, ShapeProxyStutter}, {1, 4, ShapeClientLimited}} {
		s := &Summary{Metrics: Metrics{}, Signals: Signals{ContentStreams: 4, ContentFrames: 100, Stutter: tc.stutter},
			Client: &Client{OS: &ClientOS{Available: true, Streams: 4, Starved: tc.starved, Limited: true}}}
		var got []string
		for _, d := range Diagnose(s) {
			got = append(got, d.Shape)
		}
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("%d stutter streams, %d starved: diagnosis %v, want %s first", tc.stutter, tc.starved, got, tc.want)
		}
	}
}
