package tui

import (
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// TestClocksRowsAllShowAtEverySize: drip view of 7 runs (the timeline
// taking its most rows) shows every clocks row, the last (2nd token)
// included, at each size the screen lays out the clocks beside the text
// — at 120×40 the panel was given 13 rows for its 15.
func TestClocksRowsAllShowAtEverySize(t *testing.T) {
	recs := make([]*record.Record, 7)
	for i := range recs {
		recs[i] = recorded(t, "mid-sentence-stall")
		recs[i].Seq = i
	}
	h := newHarness(t, Config{Records: recs})
	for _, sz := range [][2]int{{120, 40}, {200, 50}, {80, 24}, {120, 30}} {
		h.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		s := h.screen()
		checkFits(t, s, sz[0], sz[1])
		for _, m := range stats.Registry {
			if m.ClockLabel == "" || m.Key == "ttfo" || m.Key == "held" {
				continue // shown only when they differ from ttft / the server reports one
			}
			if !strings.Contains(s, m.ClockLabel+" ") {
				t.Errorf("%dx%d: the clocks row %q is cut:\n%s", sz[0], sz[1], m.ClockLabel, s)
			}
		}
	}
}

// TestSavedRecordsOfferNoFreeze: drip view's records never move, so its
// help has no "freeze drawing" and space does not claim "measuring
// continues"; the live view keeps the key.
func TestSavedRecordsOfferNoFreeze(t *testing.T) {
	saved := newHarness(t, Config{Records: []*record.Record{recorded(t, "steady")}})
	saved.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	saved.update(press("space"))
	if s := saved.screen(); strings.Contains(s, "freeze drawing") || strings.Contains(s, "drawing frozen") {
		t.Errorf("saved records offer to freeze the drawing:\n%s", s)
	}
	live := newHarness(t, Config{})
	live.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	live.update(live.m.Init())
	live.push(<-live.observers, events(recorded(t, "steady"))[:6]...)
	live.update(press("space"))
	if s := live.screen(); !strings.Contains(s, "space resume drawing") || !strings.Contains(s, "drawing frozen (measuring continues)") {
		t.Errorf("the live view lacks its freeze key:\n%s", s)
	}
}

// TestTimelineSaysWhichRunsItShows: drip view of 7 runs at 120×40 has
// room for 5 timeline rows and says so (it showed #3–#7 unsaid), 6 at
// 250×70; 3 runs all fit and the title says nothing of it.
func TestTimelineSaysWhichRunsItShows(t *testing.T) {
	for _, tc := range []struct {
		runs, w, h int
		want       string
		first      string
	}{
		{7, 120, 40, "timeline  last 5 of 7 runs · ", "#3 "},
		{7, 250, 70, "timeline  last 6 of 7 runs · ", "#2 "},
		{3, 120, 40, "", "#1 "},
	} {
		recs := make([]*record.Record, tc.runs)
		for i := range recs {
			recs[i] = recorded(t, "mid-sentence-stall")
			recs[i].Seq = i
		}
		h := newHarness(t, Config{Records: recs})
		h.update(tea.WindowSizeMsg{Width: tc.w, Height: tc.h})
		s := h.screen()
		var tl []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "#") && strings.Contains(l, "╌") {
				tl = append(tl, l)
			}
		}
		if len(tl) == 0 || !strings.HasPrefix(tl[0], tc.first) {
			t.Errorf("%d runs at %dx%d: the timeline's first row is not %s: %q", tc.runs, tc.w, tc.h, tc.first, tl)
		}
		if said := strings.Contains(s, " runs · │"); said != (tc.want != "") || !strings.Contains(s, tc.want) {
			t.Errorf("%d runs at %dx%d: want %q in the timeline's title:\n%s", tc.runs, tc.w, tc.h, tc.want, s)
		}
	}
}

// TestSaveBeforeAnyStreamEnded: s during the first stream wrote an empty
// file and said "saved 0 records"; it writes nothing and says when a
// stream is saved.
func TestSaveBeforeAnyStreamEnded(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, Config{SaveDir: dir})
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.update(h.m.Init())
	h.push(<-h.observers, events(recorded(t, "steady"))[:6]...)
	if cmd := h.update(press("s")); cmd != nil {
		t.Errorf("s with no finished stream returned a command (%T)", cmd())
	}
	if s := h.screen(); !strings.Contains(s, "nothing to save yet: a stream is saved once it ends") {
		t.Errorf("the header does not say why nothing was saved:\n%s", s)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("s wrote %d files with no finished stream", len(files))
	}
}

// TestRerunKeepsTheRunItCut: r during a stream cancels it, and its end
// came under an older tag and was dropped: the canceled run vanished from
// the timeline, the heatmap and the all-runs clocks while the summary on
// quit counted it (ttft n=2). It joins the history as the run it was;
// after n (another scenario) a cut run of the last one does not.
func TestRerunKeepsTheRunItCut(t *testing.T) {
	h, first := startStream(t, Config{}, 120, 40)
	rec := recorded(t, "mid-sentence-stall")
	evs := events(rec)
	h.push(first, evs[:10]...)
	h.update(press("r"))
	second := <-h.observers
	cut := &record.Record{Seq: 0, Target: rec.Target, Format: rec.Format, StartUnixNS: rec.StartUnixNS, HeadersMS: rec.HeadersMS,
		Status: record.StatusCanceled, Frames: rec.Frames[:8], DurationMS: rec.Frames[7].TMS + 1}
	if err := stats.Derive(cut, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	h.push(first, probe.Event{Type: probe.EventDone, Record: cut})
	again := *rec
	again.Seq = 1
	h.push(second, events(&again)...)
	h.advance(frameInterval)
	// Run 1 has its row on the timeline, the ttft panel and the heatmap,
	// beside run 2.
	if s := h.screen(); strings.Count(s, "#1 ") != 3 || strings.Count(s, "#2 ") != 3 {
		t.Errorf("after r cut run 1 short, its rows are not on the screen:\n%s", s)
	}
	// After n the history is the new scenario's: a run of the last one
	// that r cut short, ending after n, is not in it.
	h.update(press("r"))
	third := <-h.observers
	h.push(third, events(rec)[:10]...)
	h.update(press("r"))
	<-h.observers
	h.update(press("n"))
	<-h.observers
	h.push(third, probe.Event{Type: probe.EventDone, Record: cut})
	h.advance(frameInterval)
	if s := h.screen(); strings.Contains(s, "#2 ") || strings.Count(s, "#1 ") != 3 {
		t.Errorf("after n, the history holds more than the new scenario's cut run:\n%s", s)
	}
}

// TestStreamScreenSaysWhereTheGapsWent: where the gaps, the ttft and the
// heatmap get no rows (80×24) or no columns (60×20) the clocks' title
// says so; they went without a word. At 120×40 they show and nothing is
// said; at 90×30 the ttft alone goes, said.
func TestStreamScreenSaysWhereTheGapsWent(t *testing.T) {
	h := newHarness(t, Config{Records: []*record.Record{recorded(t, "mid-sentence-stall")}})
	for _, tc := range []struct {
		size  [2]int
		shown bool
		note  string
	}{{[2]int{80, 24}, false, "clocks  gaps, ttft, heatmap: more rows"}, {[2]int{60, 20}, false, "clocks  gaps, ttft, heatmap: 72+ columns"},
		{[2]int{120, 40}, true, ""}, {[2]int{90, 30}, true, "clocks  ttft: 100+ columns"}} {
		h.update(tea.WindowSizeMsg{Width: tc.size[0], Height: tc.size[1]})
		s := h.screen()
		checkFits(t, s, tc.size[0], tc.size[1])
		if shown := strings.Contains(s, " gaps  log buckets") && strings.Contains(s, " heatmap "); shown != tc.shown {
			t.Errorf("%v: gaps and heatmap shown %v, want %v:\n%s", tc.size, shown, tc.shown, s)
		}
		if ttft := strings.Contains(s, " ttft  p50 180 ms · p99 180 ms · n=1"); ttft != (tc.size[0] >= 100) {
			t.Errorf("%v: ttft panel shown %v:\n%s", tc.size, ttft, s)
		}
		if said := strings.Contains(s, "heatmap: more") || strings.Contains(s, "heatmap: 72") || strings.Contains(s, "ttft: 100"); tc.note == "" && said || tc.note != "" && !strings.Contains(s, tc.note) {
			t.Errorf("%v: want the note %q (said: %v):\n%s", tc.size, tc.note, said, s)
		}
	}
}

// TestViewNamesItsFileAndPicksAnyStream: drip view says which file it
// shows, which of its streams and what wrote them; ] and [ move through
// every stream, wrapping around, the header, the clocks and the text
// following; the whole file's column shows from 120 columns (it needed
// 160).
func TestViewNamesItsFileAndPicksAnyStream(t *testing.T) {
	recs := []*record.Record{recorded(t, "steady"), recorded(t, "buffered-burst"), recorded(t, "mid-sentence-stall")}
	for i, r := range recs {
		r.Seq, r.Host, r.Workload = i, "lab-1", &record.RecordWorkload{Version: "v1.2.0"}
	}
	h := newHarness(t, Config{Records: recs, File: "/data/runs/main.jsonl"})
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	s := h.screen()
	for _, want := range []string{"file main.jsonl", "stream 3 of 3", "from drip v1.2.0 on lab-1", "all 3 runs", "⏸ 700 ms"} {
		if !strings.Contains(s, want) {
			t.Errorf("drip view at 120×40 lacks %q:\n%s", want, s)
		}
	}
	h.update(press("]")) // wraps to the first
	if s := h.screen(); !strings.Contains(s, "stream 1 of 3") || !strings.Contains(s, "run 1 ·") {
		t.Errorf("] from the last stream did not show the first:\n%s", s)
	}
	h.update(press("["))
	h.update(press("["))
	s = h.screen()
	if !strings.Contains(s, "stream 2 of 3") || !strings.Contains(s, "buffered") || !strings.Contains(s, "stalls         0 (0 mid-sentence)") {
		t.Errorf("[ [ from the first did not show the second (buffered, no stall of its own):\n%s", s)
	}
	checkFits(t, s, 120, 40)
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	s = h.screen()
	checkFits(t, s, 80, 24)
	if !strings.Contains(s, "file main.jsonl") {
		t.Errorf("drip view at 80×24 does not name its file:\n%s", s)
	}
}

// TestStreamScreenFillsTheTerminal: at 200×50 the demo's screen left 7
// rows empty beside the clocks (the text, 117 columns wide, was given 55 %
// of the rows for three lines), 2 at 120×40; the rows go to the gaps
// below. No row of the screen is empty at either size.
func TestStreamScreenFillsTheTerminal(t *testing.T) {
	h := newHarness(t, Config{Records: []*record.Record{recorded(t, "mid-sentence-stall")}})
	for _, sz := range [][2]int{{200, 50}, {120, 40}} {
		h.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		s := h.screen()
		checkFits(t, s, sz[0], sz[1])
		for i, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(l) == "" {
				t.Errorf("%v: row %d is empty:\n%s", sz, i+1, s)
				break
			}
		}
	}
}
