package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// The clocks panel has a row for every registry metric with a place on
// it, the four added through the registry alone among them, each with
// this run's p50 and the p50 (n) of all runs.
func TestClocksFromRegistry(t *testing.T) {
	st := NewStyles(true, false)
	r := replay(t, "mid-sentence-stall", 0)
	r.HeadersMS = new(3.25)
	panel := ansi.Strip(ClocksPanel(Clocks{Record: r, This: summaryOf(r), All: summaryOf(r, r)}, 120, 40, &st))
	rows := map[string]string{}
	for _, l := range strings.Split(panel, "\n") {
		if len(l) > 15 {
			rows[strings.TrimSpace(l[:15])] = strings.Join(strings.Fields(l[15:]), " ")
		}
	}
	this := summaryOf(r)
	for _, key := range []string{"stream", "headers", "first_event", "tt2t"} {
		m, _ := stats.MetricByKey(key)
		d := this.Metrics[m.JSON]
		if d.P50 == nil {
			t.Fatalf("%s: no figure in the replayed stream", key)
		}
		want := textfmt.MS(*d.P50) + " " + textfmt.MS(*d.P50) + " (2)"
		if rows[m.ClockLabel] != want {
			t.Errorf("clocks row %q = %q, want %q:\n%s", m.ClockLabel, rows[m.ClockLabel], want, panel)
		}
	}
	for _, m := range stats.Registry {
		if m.ClockLabel != "" && m.Key != "ttfo" && m.Key != "held" && rows[m.ClockLabel] == "" {
			t.Errorf("no clocks row for %s (%q):\n%s", m.Key, m.ClockLabel, panel)
		}
	}
}

// A stream that failed before any content has no token count: the clocks
// say — for its tokens, as the summary leaves it out of with_token_count,
// not "0 approx"; a stream with content counts its frames.
func TestClocksTokensWithoutACount(t *testing.T) {
	st := NewStyles(true, false)
	failed := &record.Record{Status: record.StatusFailed, HeadersMS: new(0.8), DurationMS: 1,
		Error: &record.Error{Class: record.ErrHTTP429, Status: 429}}
	if err := stats.Derive(failed, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	cut := replay(t, "abort-midstream", 0)
	for _, tc := range []struct {
		r    *record.Record
		want string
	}{{failed, "tokens —"}, {cut, "tokens 12 approx"}} {
		panel := ansi.Strip(ClocksPanel(Clocks{Record: tc.r, This: summaryOf(tc.r)}, 80, 20, &st))
		if !strings.Contains(strings.Join(strings.Fields(panel), " "), tc.want) {
			t.Errorf("%s stream (with a token count: %v): want %q:\n%s", tc.r.Status, stats.HasTokenCount(tc.r), tc.want, panel)
		}
	}
}

// A clocks panel given fewer rows than ClocksHeight names on its last
// line the rows it left out, and draws them all when given ClocksHeight.
func TestClocksSayWhatTheyLeaveOut(t *testing.T) {
	st := NewStyles(true, false)
	r := replay(t, "mid-sentence-stall", 0)
	c := Clocks{Record: r, This: summaryOf(r), All: summaryOf(r, r)}
	for _, width := range []int{40, 46, 82} {
		full := ClocksHeight(c, width)
		whole := ansi.Strip(ClocksPanel(c, width, full, &st))
		if strings.Contains(whole, "not shown") || !strings.Contains(whole, "2nd token") {
			t.Errorf("width %d, height %d (ClocksHeight): not every row:\n%s", width, full, whole)
		}
		short := strings.Split(ansi.Strip(ClocksPanel(c, width, full-2, &st)), "\n")
		// An 80-column screen's panel (40) and a narrow one (46): as many
		// whole as fit.
		want := map[int]string{
			40: "not shown: path / server, +2 more",
			46: "not shown: path / server, first event, +1 more",
			82: "not shown: path / server, first event, 2nd token",
		}[width]
		if got := strings.TrimSpace(short[len(short)-1]); got != want {
			t.Errorf("width %d, height %d: last line %q, want %q", width, full-2, got, want)
		}
	}
}

// The frames that came in bursts are said whole where the panel has the
// room and shorter in the 40 columns an 80-column screen gives the
// panel, never cut ("14 frames in burs…" at 80×24).
func TestClocksBurstsFitTheirWidth(t *testing.T) {
	st := NewStyles(true, false)
	r := replay(t, "buffered-burst", 0)
	if r.CoalescedFrames == 0 {
		t.Fatal("the buffered-burst fixture has no frames in bursts")
	}
	c := Clocks{Record: r, This: summaryOf(r)}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{46, fmt.Sprintf("tokens/frame 1.00 · %d frames in bursts", r.CoalescedFrames)},
		{40, fmt.Sprintf("tokens/frame 1.00 · %d in bursts", r.CoalescedFrames)},
	} {
		panel := ansi.Strip(ClocksPanel(c, tc.width, ClocksHeight(c, tc.width), &st))
		var row string
		for _, l := range strings.Split(panel, "\n") {
			if strings.HasPrefix(l, "tokens/frame") {
				row = strings.Join(strings.Fields(l), " ")
			}
		}
		if row != tc.want {
			t.Errorf("width %d: row %q, want %q", tc.width, row, tc.want)
		}
	}
}

// TestClocksCountTokensWhole: the all-runs column printed a token count's
// p50 as "38.00 (2)"; a whole median prints whole, the median of two
// counts that differ by one keeps its .5.
func TestClocksCountTokensWhole(t *testing.T) {
	st := NewStyles(false, false)
	r := replay(t, "mid-sentence-stall", 0)
	if !stats.HasTokenCount(r) {
		t.Fatal("the replayed stream has no token count")
	}
	next := *r
	next.OutputTokens = r.OutputTokens + 1
	for _, tc := range []struct {
		all  *stats.Summary
		want string
	}{
		{summaryOf(r, r), fmt.Sprintf("%d (2)", r.OutputTokens)},
		{summaryOf(r, &next), textfmt.FormatFloat(float64(r.OutputTokens)+0.5) + " (2)"},
	} {
		panel := ansi.Strip(ClocksPanel(Clocks{Record: r, This: summaryOf(r), All: tc.all}, 120, 40, &st))
		var row string
		for _, l := range strings.Split(panel, "\n") {
			if strings.HasPrefix(l, "tokens ") {
				row = strings.Join(strings.Fields(l), " ")
			}
		}
		if !strings.HasSuffix(row, " "+tc.want) {
			t.Errorf("tokens row %q, want it to end %q:\n%s", row, tc.want, panel)
		}
	}
}

// stutterRecord is the fixture's steady stream as haproxy's defaults
// forward it: the first word at once at 180 ms, then every word written
// meanwhile in one read every 224 ms, the last at once.
func stutterRecord(t *testing.T) *record.Record {
	t.Helper()
	r := &record.Record{Status: record.StatusComplete}
	const end = 180 + 25*37
	read, tick := 0, 180.0
	for i := range 38 {
		at := 180 + 25*float64(i)
		for tick < at {
			read, tick = read+1, min(tick+224, end)
		}
		r.Frames = append(r.Frames, record.Frame{TMS: tick, Read: read, Kind: record.KindContent, Text: " w", Bytes: 180})
	}
	r.Frames = append(r.Frames, record.Frame{TMS: end, Read: read, Kind: record.KindEnd})
	r.DurationMS = end + 1
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	if r.Delivery.Class != record.DeliveryStutter {
		t.Fatalf("delivery %+v: not the stutter the test needs", *r.Delivery)
	}
	return r
}

// A stutter stream's freezes are a row of the clocks panel — counted
// under the stall threshold, with the period, shorter where room is
// short — and the all-runs column counts them; a clean stream alone has
// no such row.
func TestClocksCountFreezes(t *testing.T) {
	st := NewStyles(true, false)
	r := stutterRecord(t)
	f := r.Delivery.Freezes
	for _, tc := range []struct {
		width int
		all   bool
		want  string
	}{
		{40, false, fmt.Sprintf("freezes %d · every %s", f.Count, textfmt.MS(*r.Delivery.PeriodMS))},
		{120, true, fmt.Sprintf("freezes %d · every %s · longest %s %d in 2 streams", f.Count, textfmt.MS(*r.Delivery.PeriodMS),
			textfmt.MS(f.LongestMS), 2*f.Count)},
	} {
		c := Clocks{Record: r, This: summaryOf(r)}
		if tc.all {
			c.All = summaryOf(r, r)
		}
		panel := ansi.Strip(ClocksPanel(c, tc.width, ClocksHeight(c, tc.width), &st))
		if !strings.Contains(strings.Join(strings.Fields(panel), " "), tc.want) {
			t.Errorf("width %d: want %q:\n%s", tc.width, tc.want, panel)
		}
		if c.This.Stalls.Count != 0 {
			t.Errorf("%d stalls: the freezes are under the threshold", c.This.Stalls.Count)
		}
	}
	clean := replay(t, "steady", 0)
	if panel := ansi.Strip(ClocksPanel(Clocks{Record: clean, This: summaryOf(clean)}, 80, 30, &st)); strings.Contains(panel, "freezes") {
		t.Errorf("a clean stream has a freezes row:\n%s", panel)
	}
}
