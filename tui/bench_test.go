package tui

import (
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// BenchmarkLiveModel feeds 10,000 frames per second through the root model
// for 10 s of synthetic time, each frame its own read and a 700 ms stall
// every 2 s, the way the probe's observer and the program's messages would
// deliver them, and reports the CPU the model used per second of stream
// and the redraws per second. Run with -benchtime=1x.
func BenchmarkLiveModel(b *testing.B) {
	const (
		rate     = 10000
		duration = 10 * time.Second
		step     = time.Second / rate
	)
	words := []string{" stream", "ing", " feels", " fast", " until", " it", " does", " not."}
	for range b.N {
		h := newHarness(b, Config{Color: true})
		h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
		h.update(h.m.Init())
		observe := <-h.observers
		start := h.now
		head := &record.Record{Target: "http://bench/v1/chat/completions", Format: "openai-chat"}
		observe(probe.Event{Type: probe.EventStart, Record: head})
		observe(probe.Event{Type: probe.EventHeaders, Record: head})
		redraws0 := h.m.redraws
		cpu0 := cpuTime()
		t := 0.0
		for i := 0; time.Duration(t*float64(time.Millisecond)) < duration; i++ {
			if i > 0 && i%(2*rate) == 0 {
				t += 700
			}
			f := record.Frame{TMS: t, Read: i, Bytes: 64, Kind: adapters.KindContent, Text: words[i%len(words)]}
			head.Frames = append(head.Frames, f)
			n := len(head.Frames)
			observe(probe.Event{Type: probe.EventFrames, Frames: head.Frames[n-1 : n : n], Record: head})
			// The notification is lossy: the program sees one per drain.
			select {
			case <-h.m.feed.signal:
				h.update(feedMsg{})
			default:
			}
			h.advance(start.Add(time.Duration(t*float64(time.Millisecond))).Sub(h.now) + step)
			t += float64(step) / float64(time.Millisecond)
		}
		cpu := cpuTime() - cpu0
		secs := duration.Seconds()
		redraws := float64(h.m.redraws-redraws0) / secs
		b.ReportMetric(float64(cpu.Milliseconds())/secs, "cpu-ms/s")
		b.ReportMetric(redraws, "redraws/s")
		b.ReportMetric(float64(len(h.m.stream.cur.Record.Frames)), "frames")
		if redraws > 30 {
			b.Errorf("%.1f redraws per second, over 30", redraws)
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
