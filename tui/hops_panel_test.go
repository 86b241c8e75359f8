package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// drip view --relay: the hops panel takes the clocks' place and the text
// marks each stall with its owner, at 80×24 and 120×40; where the clocks
// went for room, the hops panel's title says so.
func TestViewBesideARelayShowsOwners(t *testing.T) {
	c, r := recordtest.Hops(t)
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: []*record.Record{c}}, []hops.File{{Name: "relay.jsonl", Records: []*record.Record{r}}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{Records: []*record.Record{c}, Relay: map[*record.Record]*hops.Stream{c: rep.For(c)}})
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		s := h.screen()
		checkFits(t, s, size[0], size[1])
		s = strings.ReplaceAll(s, "\u00a0", " ") // the text keeps a marker on one line
		for _, want := range []string{" hops  ", "182 ms = 180 ms upstream + 2 ms", "⏸ 580 ms path not.", "⏸ 700 ms upstream sentence"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: the screen lacks %q:\n%s", size, want, s)
			}
		}
	}
}

// drip watch --relay: the screen asks the relay for the running stream's
// times by its id, and once it has them the hops panel and the owners
// show, in the text too; a relay that has not seen the stream is said in
// the header.
func TestWatchAsksTheRelayForOwners(t *testing.T) {
	c, r := recordtest.Hops(t)
	rel := hops.Relayed{ID: c.StreamKey(), HeadersMS: new(1.0), Done: true}
	for _, f := range r.Frames {
		rel.Reads = append(rel.Reads, record.Read{TMS: f.TMS, N: f.Bytes})
	}
	var asked []string
	fetch := func(_ context.Context, id string) (hops.Relayed, error) {
		asked = append(asked, id)
		if id != rel.ID {
			return hops.Relayed{}, errors.New("HTTP 404: the relay has not seen this stream")
		}
		return rel, nil
	}
	h, observe := startStream(t, Config{RelayFetch: fetch}, 120, 40)
	evs := events(c)
	evs[0].Record.RunID = c.RunID
	h.push(observe, evs...)
	cmd := nextTick(h)
	if cmd == nil {
		t.Fatal("the screen did not ask the relay")
	}
	h.update(cmd())
	s := h.screen()
	for _, want := range []string{" hops  beside relay", "⏸ 580 ms path not.", "⏸ 700 ms upstream sentence", "1.15 s: 700 ms upstream + 450 ms path"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if len(asked) != 1 || asked[0] != "c11e47-0" || h.update(relayAgainMsg{}) != nil {
		t.Errorf("asked %q, then again: want once for c11e47-0, no more once the times are whole", asked)
	}

	h, observe = startStream(t, Config{RelayFetch: fetch}, 120, 40)
	unseen := *c
	unseen.RunID = "unseen"
	evs = events(&unseen)
	evs[0].Record.RunID = unseen.RunID
	h.push(observe, evs...)
	h.update(nextTick(h)())
	if s := h.screen(); !strings.Contains(s, "relay: HTTP 404") {
		t.Errorf("a relay that has not seen the stream is not said:\n%s", s)
	}
}

// nextTick delivers the next frame tick due and returns its command (the
// harness's advance drops commands; the relay's question is one).
func nextTick(h *harness) tea.Cmd {
	for i, sc := range h.sched {
		if _, ok := sc.msg.(frameMsg); ok {
			h.sched = append(h.sched[:i], h.sched[i+1:]...)
			if sc.at.After(h.now) {
				h.now = sc.at
			}
			return h.update(sc.msg)
		}
	}
	return nil
}

// TestRelayAskedAsOftenAsTheFiguresDrawn: on a live stream of 60,000
// frames the relay is asked for its times about every heavyEvery (2.4 s),
// not every relayEvery: each answer is set beside every frame.
func TestRelayAskedAsOftenAsTheFiguresDrawn(t *testing.T) {
	t.Parallel()
	asked := 0
	fetch := func(context.Context, string) (hops.Relayed, error) {
		asked++
		return hops.Relayed{}, nil
	}
	h, observe := startStream(t, Config{RelayFetch: fetch}, 120, 40)
	head := &record.Record{Target: "http://bench/v1/chat/completions", Format: "openai-chat", RunID: "r1"}
	observe(probe.Event{Type: probe.EventStart, Record: head})
	observe(probe.Event{Type: probe.EventHeaders, Record: head})
	for i := range 60000 {
		head.Frames = append(head.Frames, record.Frame{TMS: float64(i) / 10, Read: i, Bytes: 8, Kind: adapters.KindContent, Text: " w"})
	}
	h.push(observe, probe.Event{Type: probe.EventFrames, Frames: head.Frames, Record: head})
	for range 90 { // 3 s of frame ticks
		if cmd := nextTick(h); cmd != nil {
			h.update(cmd())
		}
		h.now = h.now.Add(frameInterval)
	}
	if asked < 1 || asked > 2 {
		t.Errorf("the relay was asked %d times in 3 s of a 60,000-frame stream, want 1 or 2 (every %v)", asked, heavyEvery(60000))
	}
}

// Beside a relay the clocks sit in the gaps' place under the text: at
// 120×40 they kept 24 columns and cut every figure ("gap p50 p95
// 2.19 / 3…"). They keep the width they have beside the text.
func TestBesideARelayTheClocksKeepTheirFigures(t *testing.T) {
	t.Parallel()
	c, r := recordtest.Hops(t)
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: []*record.Record{c}}, []hops.File{{Name: "relay.jsonl", Records: []*record.Record{r}}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{Records: []*record.Record{c}, Relay: map[*record.Record]*hops.Stream{c: rep.For(c)}})
	for _, size := range [][2]int{{120, 40}, {200, 50}} {
		h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		s := h.screen()
		checkFits(t, s, size[0], size[1])
		for _, label := range []string{"wait (ttft)", "gap p50 p95", "gap p99 max", "2nd token"} {
			i := strings.Index(s, label)
			if i < 0 {
				t.Errorf("%v: no %q row:\n%s", size, label, s)
				continue
			}
			if row, _, _ := strings.Cut(s[i:], "\n"); !strings.Contains(row, " ms") {
				t.Errorf("%v: the %q row is cut: %q\n%s", size, label, row, s)
			}
		}
	}
}

// Beside a relay the rows the clocks, the TTFT and the heatmap do not
// need go to the text and the hops panel: at 200×50 the text of a long
// answer had 4 rows and 17 stood empty under the clocks.
func TestBesideARelayTheTextTakesTheRowsLeft(t *testing.T) {
	t.Parallel()
	fetch := func(context.Context, string) (hops.Relayed, error) { return hops.Relayed{}, nil }
	for _, size := range [][2]int{{120, 40}, {200, 50}} {
		h, observe := startStream(t, Config{RelayFetch: fetch}, size[0], size[1])
		head := &record.Record{Target: "http://bench/v1/chat/completions", Format: "openai-chat", RunID: "r1"}
		observe(probe.Event{Type: probe.EventStart, Record: head})
		observe(probe.Event{Type: probe.EventHeaders, Record: head})
		for i := range 3000 {
			head.Frames = append(head.Frames, record.Frame{TMS: float64(i), Read: i, Bytes: 8, Kind: adapters.KindContent, Text: " word"})
		}
		h.push(observe, probe.Event{Type: probe.EventFrames, Frames: head.Frames, Record: head})
		for range 60 { // 2 s of frame ticks: the figures are drawn by then
			if cmd := nextTick(h); cmd != nil {
				h.update(cmd())
			}
			h.now = h.now.Add(frameInterval)
		}
		s := h.screen()
		checkFits(t, s, size[0], size[1])
		text, blank := 0, 0
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "word word word") {
				text++
			}
			if strings.TrimSpace(line) == "" {
				blank++
			}
		}
		if text < size[1]/3 || blank > 1 {
			t.Errorf("%v: the text has %d rows and %d rows are empty, want %d or more and at most 1:\n%s", size, text, blank, size[1]/3, s)
		}
	}
}
