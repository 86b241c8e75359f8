package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/calibrate"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// TestTUIFiguresEqualHeadless measures a fixture stream headless (--json
// --out), then opens its record in the live view: every figure the clocks
// panel shows is the one --json reported.
func TestTUIFiguresEqualHeadless(t *testing.T) {
	for _, scenario := range []string{"mid-sentence-stall", "reasoning", "in-stream-error"} {
		t.Run(scenario, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { testTUIFiguresEqualHeadless(t, scenario) }) })
	}
}

func testTUIFiguresEqualHeadless(t *testing.T, scenario string) {
	srv := serveInMemory(t, fixtures.NewServer())
	tg, o, err := fixtureTarget(srv.URL, scenario)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var stdout, stderr bytes.Buffer
	out := outputFlags{json: true, out: path}
	err = runHeadless(context.Background(), &stdout, &stderr, probe.Plan{Target: tg, Options: o, Runs: 1, PromptID: "p0"}, &out)
	if failing := scenario == "in-stream-error"; (err != nil) != failing { // a run with no completed stream is exit 3
		t.Fatal(err, stderr.String())
	}
	var s stats.Summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, path)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}

	m := tui.New(context.Background(), tui.Config{Records: recs, StallMS: o.StallMS})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	screen := strings.ReplaceAll(ansi.Strip(m.View().Content), "\u00a0", " ")
	mt := s.Metrics
	ms := textfmt.OptMS
	pair := func(a, b *float64) string {
		if a == nil {
			return "—"
		}
		return textfmt.OptMS(a) + " / " + textfmt.OptMS(b)
	}
	want := []string{
		"wait (ttft)    " + ms(mt["ttft_ms"].P50),
		"tail           " + ms(mt["tail_ms"].P50),
		"first byte     " + ms(mt["first_byte_ms"].P50),
		fmt.Sprintf("gaps           n %d", mt["gap_ms"].N),
		"gap p50 p95    " + pair(mt["gap_ms"].P50, mt["gap_ms"].P95),
		"gap p99 max    " + pair(mt["gap_ms"].P99, mt["gap_ms"].Max),
		fmt.Sprintf("stalls         %d (%d mid-sentence)", s.Stalls.Count, s.Stalls.MidSentence),
		"itl            " + ms(mt["itl_ms"].P50),
		"tok/s per user " + textfmt.Num(mt["tps_user"].P50),
	}
	if mt["ttfo_ms"].P50 != nil && *mt["ttfo_ms"].P50 != *mt["ttft_ms"].P50 {
		want = append(want, "ttfo           "+ms(mt["ttfo_ms"].P50))
	}
	if s.Streams.Completed == 1 {
		want = append(want, fmt.Sprintf("tokens         %.0f %s", *mt["output_tokens"].P50, recs[0].TokensSource))
	}
	for _, w := range want {
		if !strings.Contains(screen, w) {
			t.Errorf("the live view does not show %q", w)
		}
	}
	if t.Failed() {
		t.Log("\n" + screen + "\n" + stdout.String())
	}
}

// BenchmarkStampErrorWithTUI compares drip's timestamp error measured
// headless (as drip calibrate does, one stream at a time) with the error
// while the live view runs the same streams: the calibrate scenario through
// a whole Bubble Tea program, every frame paired with the fixture server's
// write log. Headless and live streams alternate, so both meet the same
// machine load. Run with -benchtime=1x; it reports p50/p99/max for both.
func BenchmarkStampErrorWithTUI(b *testing.B) {
	const rounds = 10
	srv := calibrate.InProcess()
	defer srv.Close()
	tg, o, err := fixtureTarget(srv.URL(), calibrate.Scenario)
	if err != nil {
		b.Fatal(err)
	}
	o.Client = probe.NewClient(0)
	ctx := context.Background()
	for range b.N {
		var (
			headless calibrate.Level
			live     calibrate.Level
			mu       sync.Mutex
			done     = make(chan *record.Record, 1)
		)
		src := tui.Source{Name: "calibrate", Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
			tt := tg
			tt.Request.Model = fmt.Sprintf("calibrate#tui-%d", seq)
			return probe.Stream(ctx, tt, o, &record.Record{Seq: seq}, observe)
		}}
		m := tui.New(ctx, tui.Config{Sources: []tui.Source{src}, StallMS: o.StallMS, Color: true, Sink: func(r *record.Record) {
			mu.Lock()
			live.Streams++
			writes, _ := srv.Writes(r.Model)
			live.Pair(r, writes)
			mu.Unlock()
			done <- r
		}})
		p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(120, 40),
			tea.WithoutSignals(), tea.WithFPS(30))
		ran := make(chan error, 1)
		go func() { _, err := p.Run(); ran <- err }()
		for i := range rounds {
			<-done
			h, err := calibrate.Run(ctx, srv, tg, o, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			headless.Streams += h.Streams
			headless.Frames += h.Frames
			headless.Unpaired += h.Unpaired
			headless.StampErr = append(headless.StampErr, h.StampErr...)
			if i < rounds-1 {
				p.Send(tea.KeyPressMsg{Code: 'r', Text: "r"})
			}
		}
		p.Quit()
		if err := <-ran; err != nil {
			b.Fatal(err)
		}
		m.Wait()
		for name, cal := range map[string]calibrate.Level{"headless": headless, "tui": live} {
			d := stats.NewDist(cal.StampErr)
			if d.N == 0 {
				b.Fatalf("%s: no frames paired", name)
			}
			b.ReportMetric(*d.P50, name+"-stamp-p50-ms")
			b.ReportMetric(*d.P99, name+"-stamp-p99-ms")
			b.ReportMetric(*d.Max, name+"-stamp-max-ms")
			b.Logf("%s: %d streams, %d frames paired, %d unpaired; stamp error ms p50 %s p99 %s max %s",
				name, cal.Streams, cal.Frames, cal.Unpaired, textfmt.Num(d.P50), textfmt.Num(d.P99), textfmt.Num(d.Max))
		}
	}
}
