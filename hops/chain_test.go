package hops_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// chain is three client streams through two relays: relay A beside the
// server, relay B 40 ms after it, the client 60 ms after B.
func chain(t *testing.T) (hops.File, []hops.File) {
	t.Helper()
	rf := relayFrames()
	var clients []*record.Record
	files := []hops.File{{Name: "relayB.jsonl"}, {Name: "relayA.jsonl"}} // the outer relay first: order decides nothing
	for seq := range 3 {
		clients = append(clients, stream(t, "run1", seq, false, later(rf, 100)))
		files[0].Records = append(files[0].Records, withID(stream(t, "b", seq, true, later(rf, 40)), fmt.Sprintf("run1-%d", seq)))
		files[1].Records = append(files[1].Records, withID(stream(t, "a", seq, true, rf), fmt.Sprintf("run1-%d", seq)))
	}
	return hops.File{Name: "client.jsonl", Records: clients}, files
}

// later is fs d ms later, one read a frame.
func later(fs []frame, d float64) []frame {
	out := shifted(fs, func(int) float64 { return d })
	for i := range out {
		out[i].t -= 5000
	}
	return out
}

// Two relays in a chain: each client stream is pooled once (its two
// stalls, not four), and TTFT is split hop by hop: the server's 180 ms to
// relay A, 40 ms from A to B, 60 ms from B to the client.
func TestTwoRelaysPoolEachStreamOnceAndSplitTTFTByHop(t *testing.T) {
	t.Parallel()
	client, relays := chain(t)
	rep, err := hops.Analyse(client, relays)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pooled
	if n := p.Stalls[hops.OwnerUpstream] + p.Stalls[hops.OwnerPath] + p.Stalls[hops.OwnerBoth]; n != 6 || p.Stalls[hops.OwnerUpstream] != 6 {
		t.Errorf("pooled stalls %v, want 6 (2 a stream, 3 streams), all upstream", p.Stalls)
	}
	if p.TTFTUpstream.N != 3 || *p.TTFTUpstream.P50 != 180 || *p.TTFTPath.P50 != 100 {
		t.Errorf("ttft upstream n=%d p50 %v, path p50 %v; want 3 streams, 180 and 100 ms", p.TTFTUpstream.N, *p.TTFTUpstream.P50, *p.TTFTPath.P50)
	}
	var hopsText []string
	for _, h := range p.TTFTHops {
		hopsText = append(hopsText, fmt.Sprintf("%s→%s %v (n=%d)", h.From, h.To, *h.TTFT.P50, h.TTFT.N))
	}
	want := "server→relayA.jsonl 180 (n=3); relayA.jsonl→relayB.jsonl 40 (n=3); relayB.jsonl→client 60 (n=3)"
	if got := strings.Join(hopsText, "; "); got != want {
		t.Errorf("ttft by hop %q, want %q", got, want)
	}
}

// A relay that read late, by its own record (the server's first token
// was ready 150 ms before the relay read it: held_ms), has that lateness
// taken out of the upstream's TTFT, not charged to the server.
func TestARelaysLatenessIsNotTheServers(t *testing.T) {
	t.Parallel()
	relay := withID(stream(t, "r", 0, true, later(relayFrames(), 0)), "run1-0")
	relay.Server = map[string]any{"prompt_eval_duration_ms": 30.0} // Ollama's own timing of its first token
	if err := stats.Derive(relay, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	client := stream(t, "run1", 0, false, later(relayFrames(), 20))
	rep := analyse(t, client, relay)
	s := rep.Streams[0]
	if s.TTFT.RelayMS == nil || *s.TTFT.RelayMS != 150 || *s.TTFT.UpstreamMS != 30 || *s.TTFT.PathMS != 20 {
		t.Errorf("ttft split %s: want relay 150, upstream 30, path 20", splitText(s.TTFT))
	}
}

func splitText(s hops.Split) string {
	g := func(p *float64) string {
		if p == nil {
			return "null"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("client %s upstream %s relay %s path %s", g(s.ClientMS), g(s.UpstreamMS), g(s.RelayMS), g(s.PathMS))
}
