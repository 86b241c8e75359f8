package calibrate

import (
	"fmt"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// Load is what the machine did during a level, the evidence for Judge.
type Load struct {
	Cores     int
	ClientLag stats.Dist  // drip's schedule lag, ms (the in-process server's with it)
	ServerLag *stats.Dist // the server process's, ms, nil in-process
	// DripCores is the CPU drip's client and server used, in cores.
	// MachineCores is what the whole machine used. Nil where the system does
	// not say.
	DripCores, MachineCores *float64
}

// LagBoundMS is the schedule lag of saturation. A level whose client or
// server goroutines waited this long (p99) for a core after they became
// runnable is saturated. Every read and write waited about as long, and the calibrate gap is 10 ms. Past a
// millisecond the error is the queue for the CPU, not drip's stamping.
const LagBoundMS = 1.0

// lagMinSamples is the fewest wake-ups a p99 is read from. With fewer,
// the p99 is one hiccup, not a tail.
const lagMinSamples = 100

// BusyShare is the share of busy cores that saturates a level. A reader
// woken by its data found no idle core.
const BusyShare = 0.9

// Verdict says whether a level measured drip or the machine, and why.
type Verdict struct {
	Saturated bool
	Reasons   []string // each rule that held, with its evidence
	// Who loaded the machine. It is "drip's own client and server" when
	// they used half the busy cores or more, else "other work on this
	// machine", and "" when the system does not say drip's CPU.
	Who string
}

// Judge applies the rules. A level is saturated by a schedule lag p99 ≥
// LagBoundMS in the client or the server process, or by the machine's
// cores ≥ BusyShare busy.
func (l Load) Judge() Verdict {
	var v Verdict
	lag := func(name string, d stats.Dist) {
		if d.N >= lagMinSamples && d.P99 != nil && *d.P99 >= LagBoundMS {
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s schedule lag p99 %s ≥ %s (%d wake-ups sampled)", name, textfmt.MS(*d.P99), textfmt.MS(LagBoundMS), d.N))
		}
	}
	lag("client", l.ClientLag)
	if l.ServerLag != nil {
		lag("server", *l.ServerLag)
	}
	if m := l.MachineCores; m != nil && l.Cores > 0 && *m >= BusyShare*float64(l.Cores) {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%s of %d cores busy ≥ %g %%", num(*m), l.Cores, BusyShare*100))
	}
	v.Saturated = len(v.Reasons) > 0
	if d := l.DripCores; v.Saturated && d != nil {
		busy := float64(l.Cores)
		if l.MachineCores != nil {
			busy = *l.MachineCores
		}
		v.Who = "other work on this machine"
		if *d >= busy/2 {
			v.Who = "drip's own client and server"
		}
	}
	return v
}

func num(v float64) string { return fmt.Sprintf("%.3g", v) }
