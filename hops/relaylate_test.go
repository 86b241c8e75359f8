package hops_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// A relay starved for 400 ms reads the upstream's words 5 to 19 late,
// though its kernel had each on time, 25 ms apart; the client 2 ms after
// the relay's reads sees a 425 ms silence. By the relay's read times the
// upstream made the stall. By its kernel's it made none: the silence is the
// relay's own, and so is its share of the TTFT when the first word came late.
func TestTheRelaysOwnLatenessIsNotTheUpstreams(t *testing.T) {
	t.Parallel()
	lagOf := func(i int) float64 {
		if i >= 5 {
			return 400
		}
		return 0.5
	}
	var kernel, relayRead, clientRead []frame
	for i := range 20 {
		text := fmt.Sprintf("w%02d ", i)
		at := 100 + 25*float64(i)
		kernel = append(kernel, frame{text, at, i})
		relayRead = append(relayRead, frame{text, at + lagOf(i), i})
		clientRead = append(clientRead, frame{text, at + lagOf(i) + 2, i})
	}
	witnessed := func(r *record.Record) *record.Record {
		r.Witness = &record.Witness{Stamped: true}
		for i := range 20 {
			r.Witness.Reads = append(r.Witness.Reads, record.WitnessRead{LagMS: lagOf(i), Segs: 1})
		}
		return r
	}

	blind := analyse(t, stream(t, "run1", 0, false, clientRead), withID(stream(t, "r", 0, true, relayRead), "run1-0"))
	if st := blind.Streams[0].Stalls; len(st) != 1 || st[0].Owner != hops.OwnerUpstream {
		t.Fatalf("without the relay's kernel: stalls %+v, want one, the upstream's (what the read times say)", st)
	}
	rep := analyse(t, stream(t, "run1", 0, false, clientRead), witnessed(withID(stream(t, "r", 0, true, relayRead), "run1-0")))
	s := rep.Streams[0]
	if len(s.Stalls) != 1 || s.Stalls[0].Owner != hops.OwnerRelay || s.Stalls[0].UpstreamMS != 0 || s.Stalls[0].RelayMS != 400 {
		t.Fatalf("stalls %+v, want one, the relay's own: 400 ms of it, none upstream", s.Stalls)
	}
	if rep.Verdict.Rule != hops.RuleClean || !strings.HasPrefix(rep.Verdict.Text, "no stall the upstream or the path made") || !strings.Contains(rep.Verdict.Text, "1 stall the relay's own (400") {
		t.Errorf("verdict %s: %q, want no stall of the upstream or the path, and the relay's named", rep.Verdict.Rule, rep.Verdict.Text)
	}

	lagOf = func(int) float64 { return 300 }
	var relayTTFT, clientTTFT []frame
	for _, f := range kernel {
		relayTTFT = append(relayTTFT, frame{f.text, f.t + 300, f.read})
		clientTTFT = append(clientTTFT, frame{f.text, f.t + 302, f.read})
	}
	s = analyse(t, stream(t, "run1", 1, false, clientTTFT), witnessed(withID(stream(t, "r", 0, true, relayTTFT), "run1-1"))).Streams[0]
	if g := splitText(s.TTFT); g != "client 402 upstream 100 relay 300 path 2" {
		t.Errorf("TTFT split %s, want 100 ms upstream, 300 ms the relay's, 2 ms path", g)
	}
}
