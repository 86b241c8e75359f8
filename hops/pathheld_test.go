package hops_test

import (
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// A proxy after the relay holds words 4 to 15 for about a second. What
// held the path's share comes from the relay's kernel account of its
// socket to the client: a full window for half the path's share or more is
// a client that stopped reading (whatever its full buffer dropped),
// retransmits past the spurious ones are otherwise loss, and neither is a
// proxy's hold. A relay record without the
// figures names all three.
func TestWhatHeldThePathIsTheRelaysKernels(t *testing.T) {
	t.Parallel()
	rf := relayFrames()
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
	for _, c := range []struct {
		name string
		down *record.DownstreamTCP
		want string
		says string
	}{
		{"no figures", nil, hops.HeldUnknown, "a lost segment, a client that stopped reading or a proxy's hold"},
		{"loss", &record.DownstreamTCP{Retransmits: 3, Spurious: 1}, hops.HeldLoss, "1 stream segments lost"},
		{"spurious only", &record.DownstreamTCP{Retransmits: 4, Spurious: 4}, hops.HeldProxy, "a proxy that held the bytes"},
		{"window full", &record.DownstreamTCP{RwndLimitedMS: 900}, hops.HeldReader, "a client that stopped reading"},
		{"window full, then dropped", &record.DownstreamTCP{RwndLimitedMS: 900, Retransmits: 7, Spurious: 6}, hops.HeldReader, "a client that stopped reading"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			relay := withID(stream(t, "r", 0, true, rf), "run1-0")
			relay.Exchange.Downstream = c.down
			rep := analyse(t, stream(t, "run1", 0, false, cf), relay)
			if got := rep.Streams[0].PathHeld; got != c.want || rep.Pooled.PathHeld[c.want] != 1 {
				t.Errorf("path held by %q (pooled %v), want %q", got, rep.Pooled.PathHeld, c.want)
			}
			if !strings.Contains(rep.Verdict.Text, c.says) {
				t.Errorf("verdict %q, want it to say %q", rep.Verdict.Text, c.says)
			}
		})
	}
	clean := withID(stream(t, "r", 0, true, rf), "run1-3")
	client := stream(t, "run1", 3, false, shifted(rf, func(int) float64 { return 0 }))
	client.TTFTMS = new(*clean.TTFTMS + 2)
	if s := analyse(t, client, clean).Streams[0]; s.PathHeld != "" {
		t.Errorf("a path that held nothing: held by %q, want none", s.PathHeld)
	}
}
