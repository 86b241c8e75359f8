package calibrate

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
)

// Config is what Measure streams, the calibrate scenario of Server through
// Target and Options, Rounds rounds at each of Levels concurrent streams.
type Config struct {
	Server   Server
	Separate bool // the server runs in a process of its own
	Target   probe.Target
	Options  probe.Options
	Levels   []int
	Rounds   int
}

// Bounds of a Config. More is a typo, not a calibration.
const (
	MaxRounds = 1000
	MaxLevel  = 2000 // concurrent streams
)

// Check reports a Config Measure cannot run, its errors naming the flags
// that set it (--rounds, --concurrency).
func (c Config) Check() error {
	type bound struct {
		flag      string
		v, lo, hi int
	}
	bounds := []bound{{"--rounds", c.Rounds, 1, MaxRounds}}
	for _, l := range c.Levels {
		bounds = append(bounds, bound{"--concurrency", l, 1, MaxLevel})
	}
	for _, b := range bounds {
		switch {
		case b.v < b.lo:
			return fmt.Errorf("%s %d: must be at least %d", b.flag, b.v, b.lo)
		case b.v > b.hi:
			return fmt.Errorf("%s %d: must be at most %d", b.flag, b.v, b.hi)
		}
	}
	return nil
}

// Measure runs every level and writes drip calibrate's report to w as it
// goes. It writes a row and a load line per level, drip's decode cost,
// the legend and the verdict.
func Measure(ctx context.Context, w io.Writer, c Config) error {
	where := "server in drip's process"
	if c.Separate {
		where = "server in a separate process"
	}
	report.Para(w, "", "  ", fmt.Sprintf("drip calibrate · loopback · %s · %s · %d frames %s apart per stream · %s per level",
		where, c.Target.Format.Name, fixtures.Lookup(Scenario).OutputTokens(), textfmt.MS(10), stats.Count(c.Rounds, "round")))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-11s  %-23s  %-23s  %s\n", "", "stamp error", "gap error", "TTFT error")
	fmt.Fprintf(w, levelRow, "conc", "frames", "p50", "p99", "max", "p50", "p99", "max", "p50", "p99")
	var res resolution
	for _, conc := range c.Levels {
		l, err := Run(ctx, c.Server, c.Target, c.Options, conc, c.Rounds)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return err
		}
		v := l.Load.Judge()
		res.add(conc, v, writeLevel(w, l, v))
	}
	dc, err := DecodeCost(c.Target.Format)
	if err != nil {
		return err
	}
	if dc != nil {
		fmt.Fprintln(w)
		report.Para(w, "", "  ", fmt.Sprintf("decode + classify + stamp, without the socket: %s per frame (%.0f frames/s on one core)",
			duration(dc), float64(time.Second)/float64(*dc)))
	}
	report.Para(w, "", "  ", "conc = concurrent streams; stamp error = drip's read time − the server's flush time; "+
		"gap error = |client gap − server gap|; TTFT error = drip's TTFT − the server's (request arrival → first content flush): "+
		"the request's trip and one stamp.")
	res.write(w, c.Separate)
	return nil
}

// writeLevel writes a level's row and its load line, and returns the gap
// error's distribution.
func writeLevel(w io.Writer, l Level, v Verdict) stats.Dist {
	se, ge, te := stats.NewDist(l.StampErr), stats.NewDist(l.GapErr), stats.NewDist(l.TTFTErr)
	cpu := stats.Count(l.Streams, "stream") + " · CPU per frame " + duration(l.ClientCPU)
	if l.ServerCPU != nil {
		cpu = stats.Count(l.Streams, "stream") + " · CPU per frame client " + duration(l.ClientCPU) + " · server " + duration(l.ServerCPU)
	}
	fmt.Fprintf(w, levelRow, strconv.Itoa(l.Concurrency), strconv.Itoa(l.Frames),
		textfmt.OptMS(se.P50), textfmt.OptMS(se.P99), textfmt.OptMS(se.Max),
		textfmt.OptMS(ge.P50), textfmt.OptMS(ge.P99), textfmt.OptMS(ge.Max),
		textfmt.OptMS(te.P50), textfmt.OptMS(te.P99))
	if l.Unpaired > 0 {
		fmt.Fprintf(w, "  %d frames could not be paired with a server write\n", l.Unpaired)
	}
	for _, line := range strings.Split(cpu+" · "+loadLine(l.Load, v), "\n") {
		report.Para(w, "  ", "    ", line)
	}
	return ge
}

// levelRow is a level's row of the table, 78 columns. It holds the level
// and its frames, then the stamp and gap errors as p50 p99 max and the
// TTFT error as p50 p99, each with its unit as every report prints a time.
// The level's stream count opens the line under the row, since the row
// has no room for it.
const levelRow = "%-4s %6s  %7s %7s %7s  %7s %7s %7s  %7s %7s\n"

func loadLine(ld Load, v Verdict) string {
	s := "load: schedule lag p99 client " + lagText(ld.ClientLag)
	if ld.ServerLag != nil {
		s += ", server " + lagText(*ld.ServerLag)
	}
	s += fmt.Sprintf(" · drip %s, machine %s of %d cores", cores(ld.DripCores), cores(ld.MachineCores), ld.Cores)
	if !v.Saturated {
		return s + " · not saturated"
	}
	who := ""
	if v.Who != "" {
		who = ", loaded by " + v.Who
	}
	return s + "\n⚠ saturated (" + strings.Join(v.Reasons, "; ") + who + "): this row measures the machine, not drip"
}

// resolution is what the verdict reads from the levels, the worst p99 gap
// error of the unsaturated levels of up to 10 streams, the largest of
// which is upTo.
type resolution struct {
	worst     *float64
	upTo      int
	saturated []string // the saturated levels, left out
	small     bool     // a level of up to 10 streams ran
}

// add counts a level of c streams, its verdict and its gap error.
func (r *resolution) add(c int, v Verdict, ge stats.Dist) {
	r.small = r.small || c <= 10
	if v.Saturated {
		r.saturated = append(r.saturated, fmt.Sprint(c))
	} else if c <= 10 && ge.P99 != nil {
		r.upTo = max(r.upTo, c)
		if r.worst == nil || *ge.P99 > *r.worst {
			r.worst = ge.P99
		}
	}
}

// write says the verdict. separate is the server in a process of its own.
func (r resolution) write(w io.Writer, separate bool) {
	if len(r.saturated) > 0 {
		try := "--server-proc, fewer streams"
		if separate {
			try = "fewer streams"
		}
		report.Para(w, "", "  ", fmt.Sprintf("saturated at %s streams: those rows measure this machine's load, not drip; "+
			"the verdict leaves them out (try %s, or a quieter machine).", strings.Join(r.saturated, ", "), try))
	}
	switch {
	case !r.small:
		report.Para(w, "", "  ", "verdict: none: the resolution is read at up to 10 concurrent streams (add one, e.g. --concurrency 1,1000).")
		return
	case r.worst == nil:
		report.Para(w, "", "  ", "verdict: no unsaturated level at up to 10 concurrent streams: nothing to resolve gap differences by; measure when the machine is quiet.")
		return
	}
	report.Para(w, "", "  ", fmt.Sprintf("verdict: at up to %s this machine resolves gap differences of %s or more (p99 gap error).",
		stats.Count(r.upTo, "concurrent stream"), textfmt.MS(max(*r.worst, 0.001))))
}

func lagText(d stats.Dist) string {
	if d.P99 == nil {
		return "—"
	}
	return textfmt.MS(*d.P99)
}

func cores(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

// duration prints a time taken as every report prints a duration.
func duration(d *time.Duration) string {
	if d == nil {
		return "—"
	}
	return textfmt.MS(float64(*d) / float64(time.Millisecond))
}
