package tui

import (
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
)

// BenchmarkLiveModel feeds 100,000 frames at 10,000 per second through
// the root model, each frame its own read and a 700 ms stall every 2 s
// (13.5 s of synthetic time), the way the probe's observer and the
// program's messages would deliver them, and reports the CPU the model
// used per second of stream and the redraws per second. It fails over
// liveBudgetMS. Run with -benchtime=1x.
func BenchmarkLiveModel(b *testing.B) {
	const rate = 10000
	for range b.N {
		h := newHarness(b, Config{Color: true})
		h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
		h.update(h.m.Init())
		redraws0 := h.m.redraws
		cost := feedFrames(h, []func(probe.Event){<-h.observers}, rate, 10*rate)
		secs := cost.span.Seconds()
		redraws := float64(h.m.redraws-redraws0) / secs
		cpuMS := float64(cost.cpu.Milliseconds()) / secs
		b.ReportMetric(cpuMS, "cpu-ms/s")
		b.ReportMetric(redraws, "redraws/s")
		b.ReportMetric(float64(len(h.m.stream.cur.Record.Frames)), "frames")
		if redraws > 30 {
			b.Errorf("%.1f redraws per second, over 30", redraws)
		}
		if cpuMS > liveBudgetMS {
			b.Errorf("the live model took %.1f CPU-ms a second, over %d", cpuMS, liveBudgetMS)
		}
	}
}

// liveBudgetMS is the most CPU the live model may take per second of a
// 10,000-frames/s stream: 5 % of a core (issue 43).
const liveBudgetMS = 50

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
