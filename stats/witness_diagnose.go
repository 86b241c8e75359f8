package stats

import (
	"fmt"

	"github.com/driplab/drip/internal/textfmt/numfmt"
)

// The diagnosis reads the client's kernel (Summary.Witness) for who was
// late, who merged the frames, and what ended each silence.

// hopsSettles is how to tell a proxy's interval from a server's batches.
// The client's socket alone cannot, because both hand it frames merged.
const hopsSettles = "`drip hops` with a relay beside the server (drip record) tells which"

// batchHint is the stutter hint when the client's kernel saw each burst's
// frames come in one segment. The merge was then made before the socket,
// by a hop or by the server, and the hint names both.
func batchHint(period string) string {
	return fmt.Sprintf("content arrives in bursts every %s, each burst's frames merged before drip's socket: "+
		"a proxy forwarding on an interval (haproxy's defaults do; option http-no-delay turns it off), or the server writing tokens in batches; %s; ",
		period, hopsSettles)
}

// witnessed reports whether the client's kernel stamped the reads of at
// least one stream. The reader's lateness is then known rather than
// guessed from the OS.
func (x *figures) witnessed() bool { return x.s.Witness != nil && x.s.Witness.Stamped > 0 }

// readerLate reports whether at least LateStreamsPct of the stamped
// streams had a late reader (ReaderLateRule).
func (x *figures) readerLate() bool {
	return x.witnessed() && pct(x.s.Witness.Late, x.s.Witness.Stamped) >= LateStreamsPct
}

// clientLate is the client-limited rule's reading of the client. Where
// the kernel witnessed the reads, only a late reader makes it. A busy
// machine whose reader kept up is not client-limited, whatever its
// threads waited. Elsewhere the OS and the goroutines' waits stand in.
func (x *figures) clientLate() bool {
	if x.witnessed() {
		return x.readerLate()
	}
	return x.schedLimited() || x.osLimited()
}

// lossLed reports whether at least LossSilencePct of the witnessed
// silences, and at least one, were lost segments' (LossRule).
func (x *figures) lossLed() bool {
	w := x.s.Witness
	return w != nil && w.Silences.Loss > 0 && pct(w.Silences.Loss, w.Silences.Count) >= LossSilencePct
}

// mergedBeforeSocket reports whether the witnessed content reads that
// merged frames took them mostly from one segment. The merge was then
// made before the socket.
func (x *figures) mergedBeforeSocket() bool {
	w := x.s.Witness
	return w != nil && w.SocketMerges > 0 && w.SocketMerges >= w.ReaderMerges
}

// serverStalled reports whether every witnessed silence ended with one
// frame read alone, no segment was lost, and under CoalescedFlagPct of the
// reads merged frames before the socket. The server then paused, and
// nothing on the way held what it sent.
func (x *figures) serverStalled() bool {
	w := x.s.Witness
	if w == nil || w.Streams == 0 || w.Silences.Count == 0 {
		return false
	}
	// A silence the reader ended late, taking frames that had come in
	// separate segments together, is no hop's either. Nothing on the way
	// merged them.
	return w.Silences.OneFrame+w.Silences.ReaderMerged == w.Silences.Count && w.OutOfOrder == 0 && w.Retransmits == 0 &&
		pct(w.SocketMerges, w.Reads) < CoalescedFlagPct
}

// hopUneven is the transport rule's uneven delivery, unless the kernel
// saw the silences were the server's pauses or lost segments. A fat gap
// tail then says nothing of a proxy.
func (x *figures) hopUneven() bool { return x.uneven() && !x.serverStalled() && !x.lossLed() }

// readerEvidence is the client-limited rule's evidence from the kernel.
func readerEvidence(s *Summary) string {
	w, lag := s.Witness, ReaderLag.Of(s.Metrics)
	return fmt.Sprintf("the client's kernel: %d of %d stamped streams (%s) had a late reader (%s), ≥ %g%%; reader lag p50 %s, p99 %s, max %s (n=%d reads); %d content reads merged frames that arrived in separate segments",
		w.Late, w.Stamped, pctText(pct(w.Late, w.Stamped)), w.Rule, LateStreamsPct,
		numfmt.MS(val(lag.P50)), numfmt.MS(val(lag.P99)), numfmt.MS(val(lag.Max)), lag.N, w.ReaderMerges)
}

// mergeEvidence is what the kernel saw of the merged reads. It is empty
// without the kernel's witness.
func mergeEvidence(w *WitnessSummary) []string {
	if w == nil || w.Streams == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the client's kernel: %d content reads merged frames that came in one segment (before the socket), %d frames that came in separate segments (the reader's); %d of %d silences ended by a read merged before the socket",
		w.SocketMerges, w.ReaderMerges, w.Silences.Merged, w.Silences.Count)}
}

// serverStallEvidence is the server-stalls rule's evidence.
func serverStallEvidence(w *WitnessSummary) []string {
	return []string{
		fmt.Sprintf("the client's kernel: all %d silences ended with a read of one frame (%d) or of frames that came in separate segments (%d, the reader's merge)",
			w.Silences.Count, w.Silences.OneFrame, w.Silences.ReaderMerged),
		fmt.Sprintf("%d of %d reads (%s) merged frames before the socket (< %g%%)", w.SocketMerges, w.Reads, pctText(pct(w.SocketMerges, w.Reads)), CoalescedFlagPct),
		fmt.Sprintf("no out-of-order segment and no retransmit over %s", Count(w.Streams, "witnessed stream")),
	}
}

// threadEvidence is what the goroutines' and the OS's figures say of the
// client. Where the kernel witnessed the reads they are context, each
// thread's own, beside the reader's lag that decided. Elsewhere they are
// the evidence.
func (x *figures) threadEvidence() []string {
	var ev []string
	if x.schedLimited() {
		sl := x.s.Client.SchedLatency
		ev = append(ev, fmt.Sprintf("drip's goroutines waited for a core p99 %s ≥ %s = max(%s, %g × ttft p50 %s) after they became runnable (p50 %s, n=%d sampled)",
			numfmt.MS(val(sl.P99)), numfmt.MS(val(x.s.Client.BoundMS)), numfmt.MS(ClientLagBoundMS), ClientLagShare, numfmt.MS(x.ttft50), numfmt.MS(val(sl.P50)), sl.N))
	}
	c := x.s.Client
	switch {
	case x.witnessed() && c != nil && c.OS != nil && c.OS.Available:
		ev = append(ev, osEvidence(c.OS))
	case !x.witnessed() && x.osLimited():
		ev = append(ev, osEvidence(c.OS))
	}
	if x.witnessed() {
		for i := range ev {
			ev[i] = "context: " + ev[i]
		}
	}
	return ev
}

// firstWord is what the stutter rule calls a first read of several
// frames. It says merged where the kernel saw the frames come in one
// segment, since a server writing them together looks the same. Otherwise
// it says held.
func (x *figures) firstWord() string {
	if x.mergedBeforeSocket() {
		return "merged"
	}
	return "held"
}
