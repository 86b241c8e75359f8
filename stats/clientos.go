package stats

import (
	"fmt"

	"github.com/driplab/drip/internal/textfmt/numfmt"
	"github.com/driplab/drip/record"
)

// A starved client, as the OS sees it. One of the process's threads
// waited runnable for a core (record.ClientCPU) long enough, over a
// stream's window, to hold its reader back while frames piled up in the
// socket. The stream's bursts are then the client's doing, not a proxy's
// or the server's.
const (
	// StarvedWaitPct is the share of the window one of a stream's threads
	// must wait runnable for its process to be starved.
	StarvedWaitPct = 10.0
	// StarvedWaitMS is the shortest wait that starves, whatever the share.
	// A shorter wait does not gather frames a reader would see apart.
	StarvedWaitMS = 2.0
	// StarvedStreamsPct is the share of a run's streams with the OS's
	// figures that must be starved for the run to be client-limited. It is
	// BurstSharePct, the share proxy-buffering needs, so neither outweighs
	// the other.
	StarvedStreamsPct = BurstSharePct
)

// StarvedRule states when a stream's client was starved.
var StarvedRule = fmt.Sprintf("one of the process's threads waited runnable for a core (/proc/self/task/*/schedstat, second field, the thread that waited longest) ≥ max(%g ms, %g%% of the stream's window)", StarvedWaitMS, StarvedWaitPct)

// clientStarved is the rule over one stream's OS figures.
func clientStarved(c *record.ClientCPU) bool {
	return c.MaxThreadWaitMS >= max(StarvedWaitMS, StarvedWaitPct/100*c.WindowMS)
}

// A late reader's bursts. These bounds say what a stream's content must
// look like for the client's wait to explain its bursts. An answer a proxy
// held and handed over at once, read by a late reader, spreads only by the
// reader's own delays. Those come to a few ms for a whole answer, such as
// 0.04–0.3 ms for 55 tokens at load 10. Such an answer comes in the reads
// the read buffer's doubling needs (1, 2, 4, 8, 16 KiB), which is 4–6
// reads for an answer of a few KiB. A paced stream read late keeps its
// pace and comes in many reads.
const (
	// ExcuseMinReads is the fewest content reads an excused stream has.
	ExcuseMinReads = 8
	// ExcuseMinMSPerToken is the least time per token an excused stream's
	// content spreads over, 4 × InstantMSPerToken.
	ExcuseMinMSPerToken = 4 * InstantMSPerToken
)

// excuseStarved lifts the bursts rule a stream met when its client's wait
// explains the bursts. It keeps the rule as excused_rule and makes the
// delivery clean, so the stream keeps its ITL. The wait explains the
// bursts when the content came in ExcuseMinReads reads or more, spread
// over ExcuseMinMSPerToken a token or more, and a thread of the process
// waited runnable at least StarvedWaitMS and at least the longest silence
// between the reads. A proxy holding content longer than the client waited
// stays buffered. So does an answer that came at once, and so does a
// stream whose reader the kernel saw keep up.
func excuseStarved(r *record.Record, spanMS float64) {
	c, d := r.ClientCPU, r.Delivery
	if c == nil || d == nil || d.Rule != DeliveryBursts || d.Reads < ExcuseMinReads || readerKeptUp(r) {
		return
	}
	paced := spanMS >= ExcuseMinMSPerToken*float64(max(r.OutputTokens-1, 1))
	if paced && c.MaxThreadWaitMS >= max(StarvedWaitMS, d.LongestSilenceMS) {
		c.ExcusedRule, d.Rule, d.Class = d.Rule, "", record.DeliveryClean
	}
}

// ClientOS is the OS's account of drip's process over the measured streams
// (record.ClientCPU), or that it was not available.
type ClientOS struct {
	Available bool   `json:"available"`
	Streams   int    `json:"streams"` // with the OS's figures
	Starved   int    `json:"starved"`
	Rule      string `json:"rule"`
	// Limited says at least StarvedStreamsPct of Streams were starved.
	Limited bool `json:"limited"`
	// The dists below hold one figure per stream. They are the longest
	// one thread waited runnable, its share of the window, and the
	// machine's CPU pressure and steal over the window.
	MaxThreadWait Dist   `json:"max_thread_wait_ms"`
	WaitPct       Dist   `json:"wait_pct"`
	Pressure      Dist   `json:"cpu_pressure_pct"`
	Steal         Dist   `json:"steal_pct"`
	Note          string `json:"note,omitempty"`
}

// clientOS gathers ClientOS over the measured streams.
type clientOS struct {
	streams, starved, others     int
	wait, share, pressure, steal Sampler
}

func (o *clientOS) add(r *record.Record) {
	if r.Exchange != nil {
		return // a relay's exchange (drip record), which no client of drip's ran
	}
	c := r.ClientCPU
	if c == nil {
		o.others++
		return
	}
	o.streams++
	if c.Starved {
		o.starved++
	}
	o.wait.Add(c.MaxThreadWaitMS)
	if c.WindowMS > 0 {
		o.share.Add(100 * c.MaxThreadWaitMS / c.WindowMS)
	}
	o.pressure.AddPtr(c.PressurePct)
	o.steal.AddPtr(c.StealPct)
}

// summary returns the run's ClientOS, or nil for no streams.
func (o *clientOS) summary() *ClientOS {
	if o.streams+o.others == 0 {
		return nil
	}
	if o.streams == 0 {
		return &ClientOS{Rule: StarvedRule, Note: "not available: the OS gave no per-process run-queue wait (/proc/self/task/*/schedstat; Linux only), so a starved client cannot be told from a slow path"}
	}
	return &ClientOS{
		Available: true, Streams: o.streams, Starved: o.starved, Rule: StarvedRule,
		Limited:       pct(o.starved, o.streams) >= StarvedStreamsPct,
		MaxThreadWait: o.wait.Dist(), WaitPct: o.share.Dist(), Pressure: o.pressure.Dist(), Steal: o.steal.Dist(),
	}
}

// osEvidence is the client-limited rule's evidence from the OS.
func osEvidence(c *ClientOS) string {
	ev := fmt.Sprintf("%d of %d streams (%s) had a starved client (%s), ≥ %g%%; longest thread's run-queue wait p50 %s (%s of the window), max %s",
		c.Starved, c.Streams, pctText(pct(c.Starved, c.Streams)), c.Rule, StarvedStreamsPct,
		numfmt.MS(val(c.MaxThreadWait.P50)), pctText(val(c.WaitPct.P50)), numfmt.MS(val(c.MaxThreadWait.Max)))
	if c.Pressure.N > 0 {
		ev += fmt.Sprintf("; machine CPU pressure p50 %s (some task waiting, /proc/pressure/cpu)", pctText(val(c.Pressure.P50)))
	}
	if c.Steal.N > 0 {
		ev += fmt.Sprintf("; steal p50 %s (/proc/stat)", pctText(val(c.Steal.P50)))
	}
	return ev
}
