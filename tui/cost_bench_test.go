package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// coreBudgetPct is the most of one core a live screen may take beyond
// measuring (issue 13): the watch screen on a 5,000-frame stream at 1,000
// frames/s, the run screen at 10,000 frames/s.
const coreBudgetPct = 5.0

// BenchmarkWatchCost streams 5,000 frames at 1,000 frames/s (each its own
// read, a 700 ms stall every 2 s) into the watch screen — one target, and
// two targets racing — at 120×40 for 5 s of synthetic time, drawing the
// screen whenever Bubble Tea would, and reports the CPU the screen used as
// a share of one core. It fails over coreBudgetPct. Run with -benchtime=1x.
func BenchmarkWatchCost(b *testing.B) {
	for _, targets := range []int{1, 2} {
		b.Run(fmt.Sprintf("targets=%d", targets), func(b *testing.B) {
			for range b.N {
				var h *harness
				var observers []func(probe.Event)
				if targets == 1 {
					h = newHarness(b, Config{Color: true})
					h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
					h.update(h.m.Init())
					observers = append(observers, <-h.observers)
				} else {
					var tss []*targetSource
					h, tss = newTargetsHarness(b, false, "a", "b")
					h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
					h.m.Init()
					for _, ts := range tss {
						observers = append(observers, <-ts.observers)
					}
				}
				pct := feedFrames(h, observers, 1000, 5000).pct()
				b.ReportMetric(pct, "core-%")
				if pct > coreBudgetPct {
					b.Errorf("the watch screen took %.1f%% of a core, over %.0f%%", pct, coreBudgetPct)
				}
			}
		})
	}
}

// feedCost is the CPU a harness used over a stream's synthetic span.
type feedCost struct{ cpu, span time.Duration }

// pct is the CPU as a share of one core.
func (c feedCost) pct() float64 { return float64(c.cpu) / float64(c.span) * 100 }

// feedFrames plays n frames at rate per second into every observer, as the
// probe would, each frame its own read and a 700 ms stall every 2 s,
// letting the model's ticks fall due as they would, and returns the CPU
// used over the stream's synthetic span.
func feedFrames(h *harness, observers []func(probe.Event), rate, n int) feedCost {
	words := []string{" stream", "ing", " feels", " fast", " until", " it", " does", " not."}
	heads := make([]*record.Record, len(observers))
	for i, observe := range observers {
		heads[i] = &record.Record{Target: "http://bench/v1/chat/completions", Format: "openai-chat"}
		observe(probe.Event{Type: probe.EventStart, Record: heads[i]})
		observe(probe.Event{Type: probe.EventHeaders, Record: heads[i]})
	}
	step := time.Second / time.Duration(rate)
	start := h.now
	cpu0 := cpuTime()
	t := 0.0
	for i := range n {
		if i > 0 && i%(2*rate) == 0 {
			t += 700
		}
		for j, observe := range observers {
			head := heads[j]
			head.Frames = append(head.Frames, record.Frame{TMS: t, Read: i, Bytes: 64, Kind: adapters.KindContent, Text: words[i%len(words)]})
			k := len(head.Frames)
			observe(probe.Event{Type: probe.EventFrames, Frames: head.Frames[k-1 : k : k], Record: head})
		}
		select {
		case <-h.m.feed.signal:
			h.update(feedMsg{})
		default:
		}
		h.advance(start.Add(time.Duration(t*float64(time.Millisecond))).Sub(h.now) + step)
		t += float64(step) / float64(time.Millisecond)
	}
	return feedCost{cpu: cpuTime() - cpu0, span: time.Duration(t * float64(time.Millisecond))}
}

// BenchmarkRunScreenCost plays 20 streams of 5,000 frames in lockstep, one
// frame each every 2 ms — 10,000 frames/s for 10 s of synthetic time —
// through the run screen at 120×40, and reports the CPU the screen took as
// a share of one core. Headless drip does none of this work (the
// aggregate the report needs is added on both paths), so this is what the
// screen costs beyond headless. It fails over coreBudgetPct.
func BenchmarkRunScreenCost(b *testing.B) {
	for range b.N {
		rh := newRunHarness(b)
		rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
		var recs []*record.Record
		for i := range 20 {
			recs = append(recs, rh.stream("long", i, "p"))
		}
		frames := 0
		for _, r := range recs {
			rh.play(r, 0, 0) // build the events before the clock starts
			frames = max(frames, len(rh.evs[r]))
		}
		cpu0 := cpuTime()
		steps := 0
		for step := range frames {
			for _, r := range recs {
				rh.play(r, step, step+1)
			}
			rh.advance(2 * time.Millisecond)
			steps++
		}
		for _, r := range recs {
			rh.sink(r)
		}
		rh.advance(time.Second)
		cpu := cpuTime() - cpu0
		pct := float64(cpu) / float64(time.Duration(steps)*2*time.Millisecond+time.Second) * 100
		b.ReportMetric(pct, "core-%")
		b.ReportMetric(float64(20*frames)/(float64(steps)*0.002), "frames/s")
		if pct > coreBudgetPct {
			b.Errorf("the run screen took %.1f%% of a core, over %.0f%%", pct, coreBudgetPct)
		}
	}
}
