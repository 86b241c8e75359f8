package hops_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// frame is a content frame's text, time and read.
type frame struct {
	text string
	t    float64
	read int
}

// stream builds a derived record from its content frames.
func stream(t testing.TB, run string, seq int, relay bool, fs []frame) *record.Record {
	t.Helper()
	r := &record.Record{V: record.RecordVersion, RunID: run, Seq: seq, Phase: record.PhaseMeasure, Status: record.StatusComplete, HeadersMS: new(1.0)}
	for _, f := range fs {
		r.Frames = append(r.Frames, record.Frame{TMS: f.t, Read: f.read, Bytes: len(f.text), Kind: record.KindContent, Text: f.text})
	}
	r.Frames = append(r.Frames, record.Frame{TMS: fs[len(fs)-1].t, Read: fs[len(fs)-1].read, Kind: record.KindEnd})
	r.DurationMS = fs[len(fs)-1].t + 1
	if relay {
		r.Exchange = &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true}
	}
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	return r
}

// words are twenty words, one a frame at the relay: 25 ms apart from 180
// ms, a 700 ms stall before word 8 and a 300 ms one before word 14.
func relayFrames() []frame {
	var fs []frame
	t := 180.0
	for i := range 20 {
		switch i {
		case 8:
			t += 700
		case 14:
			t += 300
		case 0:
		default:
			t += 25
		}
		fs = append(fs, frame{fmt.Sprintf("w%02d ", i), t, i})
	}
	return fs
}

// shifted is the relay's frames as a client sees them through a path that
// adds d(i) to frame i (never before the frame before it: a stream keeps
// its order), on a clock offset by 5000 ms, one read a frame.
func shifted(fs []frame, d func(i int) float64) []frame {
	out := make([]frame, len(fs))
	for i, f := range fs {
		out[i] = frame{f.text, f.t + 5000 + d(i), i}
		if i > 0 {
			out[i].t = max(out[i].t, out[i-1].t)
		}
	}
	return out
}

func withID(r *record.Record, id string) *record.Record {
	r.Exchange.Header = map[string][]string{record.StreamHeader: {id}}
	return r
}

func analyse(t *testing.T, client *record.Record, relay *record.Record) *hops.Report {
	t.Helper()
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: []*record.Record{client}},
		[]hops.File{{Name: "relay.jsonl", Records: []*record.Record{relay}}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func owners(s hops.Stream) string {
	var out []string
	for _, st := range s.Stalls {
		out = append(out, fmt.Sprintf("%s %s %.0f+%.0f", st.Kind, st.Owner, st.UpstreamMS, st.PathMS))
	}
	return strings.Join(out, "; ")
}

// A path that only adds a constant: both stalls are the upstream's, the
// path adds nothing per frame, and the TTFT split puts the constant in
// the path; the hosts' clocks (5000 ms apart) are never compared.
func TestAPathThatAddsNothingOwnsNoStall(t *testing.T) {
	relay := withID(stream(t, "r", 0, true, relayFrames()), "run1-3")
	client := stream(t, "run1", 3, false, shifted(relayFrames(), func(int) float64 { return 0 }))
	client.TTFTMS = new(*relay.TTFTMS + 2)
	rep := analyse(t, client, relay)
	s := rep.Streams[0]
	if got := owners(s); got != "stall upstream 700+0; stall upstream 300+0" {
		t.Errorf("stalls %q, want the 700 and 300 ms ones upstream, nothing path", got)
	}
	if s.MatchedBy != hops.ByID || s.Aligned != 20 || *s.Delay.Max != 0 || *s.TTFT.PathMS != 2 {
		t.Errorf("matched by %s, %d aligned, path delay max %v, ttft path %v: want id, 20, 0, 2", s.MatchedBy, s.Aligned, *s.Delay.Max, *s.TTFT.PathMS)
	}
	if rep.Verdict.Rule != hops.RuleUpstreamStall {
		t.Errorf("verdict %+v, want %s", rep.Verdict, hops.RuleUpstreamStall)
	}
}

// A buffering proxy: it holds words 4 to 15 and lets them go in one read
// after the relay's word 15, and the rest one a read. The silence before
// word 4 holds both upstream stalls (1000 ms) and the path's wait past
// them: a stall owned by both, and the burst is the path's.
func TestABufferingPathSharesTheSilence(t *testing.T) {
	rf := relayFrames()
	relay := withID(stream(t, "r", 0, true, rf), "run1-0")
	var cf []frame
	for i, f := range rf {
		switch {
		case i < 4:
			cf = append(cf, frame{f.text, f.t, i})
		case i <= 15:
			cf = append(cf, frame{f.text, rf[15].t + 300, 4})
		default:
			cf = append(cf, frame{f.text, f.t + 300, i})
		}
	}
	rep := analyse(t, stream(t, "run1", 0, false, cf), relay)
	s := rep.Streams[0]
	silence := rf[15].t + 300 - rf[3].t
	if got, want := owners(s), fmt.Sprintf("stall both 1000+%.0f", silence-1000); got != want {
		t.Errorf("stalls %q, want %q", got, want)
	}
	if st := s.Stalls[0]; len(st.Upstream) != 2 || st.Upstream[0].GapMS != 700 || st.Upstream[1].GapMS != 300 || st.Upstream[0].Frame != 8 {
		t.Errorf("the relay's stalls inside %+v, want 700 before frame 8 and 300", st.Upstream)
	}
	if s.Bursts != 1 || rep.Verdict.Rule != hops.RulePathHolds {
		t.Errorf("%d path bursts, verdict %s: want 1, %s", s.Bursts, rep.Verdict.Rule, hops.RulePathHolds)
	}
}

// A hop that splits every frame in two and one that merges them in pairs:
// frames are aligned by their bytes, and the path's delay is still 0.
func TestFramesSplitOrMergedByAHopAlignByBytes(t *testing.T) {
	rf := relayFrames()
	relay := withID(stream(t, "r", 0, true, rf), "run1-0")
	var split, merged []frame
	for i, f := range rf {
		split = append(split, frame{f.text[:2], f.t, 2 * i}, frame{f.text[2:], f.t, 2*i + 1})
		if i%2 == 1 {
			merged = append(merged, frame{rf[i-1].text + f.text, f.t, i})
		}
	}
	for name, cf := range map[string][]frame{"split": split, "merged": merged} {
		s := analyse(t, stream(t, "run1", 0, false, cf), relay).Streams[0]
		if s.Aligned != len(cf) || *s.Delay.Max != 0 || s.DiffersAt != nil {
			t.Errorf("%s: %d of %d aligned, path delay max %v, differs at %v: want all, 0", name, s.Aligned, len(cf), *s.Delay.Max, s.DiffersAt)
		}
	}
}

// Without ids, streams match by their kept request body in order; a relay
// file that matches none is refused by name, and so is a client file
// given where the relay's goes.
func TestMatchByBodyAndRefuseStrangers(t *testing.T) {
	rf := relayFrames()
	var relays, clients []*record.Record
	for i := range 2 {
		r := stream(t, "r", i, true, rf)
		r.Exchange.SetBody([]byte(`{"model": "m",  "n": 1}`))
		relays = append(relays, r)
		c := stream(t, "", i, false, shifted(rf, func(int) float64 { return float64(i) }))
		c.Request = []byte(`{"model":"m","n":1}`)
		clients = append(clients, c)
	}
	rep, err := hops.Analyse(hops.File{Name: "c.jsonl", Records: clients}, []hops.File{{Name: "r.jsonl", Records: relays}})
	if err != nil || len(rep.Streams) != 2 || rep.Streams[1].RelaySeq != 1 || rep.Streams[0].MatchedBy != hops.ByBody {
		t.Fatalf("report %+v, %v: want 2 streams matched by body in order", rep, err)
	}
	other := stream(t, "r", 9, true, rf)
	other.Exchange.SetBody([]byte(`{"model":"other"}`))
	for _, c := range []struct {
		client, relay hops.File
		file          string
	}{
		{hops.File{Name: "c.jsonl", Records: clients}, hops.File{Name: "stranger.jsonl", Records: []*record.Record{other}}, "stranger.jsonl"},
		{hops.File{Name: "r.jsonl", Records: relays}, hops.File{Name: "c.jsonl", Records: clients}, "r.jsonl"},
	} {
		_, err := hops.Analyse(c.client, []hops.File{c.relay})
		var fe *hops.FileError
		if !errors.As(err, &fe) || fe.File != c.file {
			t.Errorf("error %v, want one naming %s", err, c.file)
		}
	}
}

// The path's delay per frame is relative to its least: a path that adds
// 20 to 60 ms has delays 0 to 40, and a stall it stretches by 40 ms is
// still the upstream's.
func TestAJitteryPathOwnsTheJitterOnly(t *testing.T) {
	rf := relayFrames()
	relay := withID(stream(t, "r", 0, true, rf), "run1-0")
	jitter := func(i int) float64 { return 20 + 40*math.Abs(math.Sin(float64(i))) }
	s := analyse(t, stream(t, "run1", 0, false, shifted(rf, jitter)), relay).Streams[0]
	if got := owners(s); !strings.HasPrefix(got, "stall upstream 700+") || !strings.Contains(got, "; stall upstream 300+") {
		t.Errorf("stalls %q, want both upstream", got)
	}
	if *s.Delay.Max > 40 || *s.Delay.Min != 0 {
		t.Errorf("path delay min %v max %v, want 0 to 40", *s.Delay.Min, *s.Delay.Max)
	}
}

// Live aligns a relay's read times with the client's frames by their
// wire bytes: the relay's reads of the fixture's body, one a frame, give
// back the relay's own stalls; a client past the relay's last read is cut
// there.
func TestLiveAlignsTheRelaysReadsByBytes(t *testing.T) {
	c, r := recordtest.Hops(t)
	rel := hops.Relayed{ID: c.StreamKey(), HeadersMS: new(1.0)}
	for _, f := range r.Frames {
		rel.Reads = append(rel.Reads, record.Read{TMS: f.TMS, N: f.Bytes})
	}
	s := hops.Live(c, rel)
	if s == nil {
		t.Fatal("no stream")
	}
	if got := owners(*s); got != "stall path 0+580; stall both 700+450; stall upstream 300+0" {
		t.Errorf("stalls %q, want those drip hops finds in the records", got)
	}
	rel.Reads = rel.Reads[:10]
	if s := hops.Live(c, rel); s == nil || s.Aligned != 9 {
		t.Errorf("a relay 10 reads in: %+v, want the 9 content frames they cover aligned", s)
	}
}

// Holding: while a stream runs, a relay that has passed on bytes the
// client has no frame of says the path holds them; one that has passed on
// no more than the client has says the upstream is the one not sending.
func TestHoldingSaysWhoHasTheBytes(t *testing.T) {
	c, r := recordtest.Hops(t)
	rel := hops.Relayed{ID: c.StreamKey()}
	for _, f := range r.Frames[:10] {
		rel.Reads = append(rel.Reads, record.Read{TMS: f.TMS, N: f.Bytes})
	}
	client := &record.Record{Frames: c.Frames[:10]}
	if got := hops.Holding(client, rel); got != hops.OwnerUpstream {
		t.Errorf("the relay passed on what the client has: %s, want upstream", got)
	}
	client.Frames = c.Frames[:8]
	if got := hops.Holding(client, rel); got != hops.OwnerPath {
		t.Errorf("the relay passed on two frames more than the client has: %s, want path", got)
	}
}

// A path that hands the stream on in bursts every 5 words (a stutter, as
// haproxy's defaults do) makes freezes under the stall threshold, each
// the path's: the relay got the words 25 ms apart.
func TestAStutteringPathOwnsItsFreezes(t *testing.T) {
	var rf, cf []frame
	for i := range 20 {
		rf = append(rf, frame{fmt.Sprintf("w%02d ", i), 180 + 25*float64(i), i})
	}
	for i, f := range rf {
		last := rf[min(i/5*5+4, 19)]
		cf = append(cf, frame{f.text, last.t + 3, i / 5})
	}
	s := analyse(t, stream(t, "run1", 0, false, cf), withID(stream(t, "r", 0, true, rf), "run1-0")).Streams[0]
	if got := owners(s); got != "freeze path 0+125; freeze path 0+125; freeze path 0+125" {
		t.Errorf("silences %q, want three freezes of 125 ms, the path's", got)
	}
}

// Freezes are not stalls: a client that saw none, only the stuttering
// path's three 125 ms freezes, is no-stalls, with no stall pooled by
// owner, none of their milliseconds counted as a stall's, and the three
// freezes counted apart.
func TestFreezesAloneAreNoStalls(t *testing.T) {
	var rf, cf []frame
	for i := range 20 {
		rf = append(rf, frame{fmt.Sprintf("w%02d ", i), 180 + 25*float64(i), i})
	}
	for i, f := range rf {
		cf = append(cf, frame{f.text, rf[min(i/5*5+4, 19)].t + 3, i / 5})
	}
	rep := analyse(t, stream(t, "run1", 0, false, cf), withID(stream(t, "r", 0, true, rf), "run1-0"))
	p := rep.Pooled
	if n := p.Stalls[hops.OwnerUpstream] + p.Stalls[hops.OwnerPath] + p.Stalls[hops.OwnerBoth]; n != 0 || p.UpstreamMS != 0 || p.PathMS != 0 || p.Freezes != 3 {
		t.Errorf("pooled %v stalls, %v ms upstream, %v ms path, %d freezes; want no stall and 3 freezes", p.Stalls, p.UpstreamMS, p.PathMS, p.Freezes)
	}
	if rep.Verdict.Rule != hops.RuleClean {
		t.Errorf("verdict %+v, want %s", rep.Verdict, hops.RuleClean)
	}
}

// Two relays in a chain each recorded the client's streams: every client
// stream is paired once with each relay file's exchange of its id, so
// neither file is refused and each stream is put beside both.
func TestTwoRelaysInAChainEachPairWithTheClient(t *testing.T) {
	rf := relayFrames()
	var clients []*record.Record
	files := []hops.File{{Name: "relayA.jsonl"}, {Name: "relayB.jsonl"}}
	for seq := range 3 {
		clients = append(clients, stream(t, "run1", seq, false, shifted(rf, func(int) float64 { return 0 })))
		for i := range files {
			files[i].Records = append(files[i].Records, withID(stream(t, "r", seq, true, rf), fmt.Sprintf("run1-%d", seq)))
		}
	}
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: clients}, files)
	if err != nil {
		t.Fatalf("refused a chain of two relays: %v", err)
	}
	var got []string
	for _, s := range rep.Streams {
		got = append(got, fmt.Sprintf("%d %s %d %s", s.Seq, s.RelayFile, s.RelaySeq, s.MatchedBy))
	}
	want := "0 relayA.jsonl 0 id; 0 relayB.jsonl 0 id; 1 relayA.jsonl 1 id; 1 relayB.jsonl 1 id; 2 relayA.jsonl 2 id; 2 relayB.jsonl 2 id"
	if strings.Join(got, "; ") != want || rep.Unmatched != 0 {
		t.Errorf("streams %q, %d unmatched; want %q, none unmatched", got, rep.Unmatched, want)
	}
}
