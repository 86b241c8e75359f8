// Command timeline measures one streamed response with drip's packages
// and draws its timeline. It shows what a Go program outside drip's module
// can do with probe, stats, record, views and tui.
//
// With no -url it serves drip's built-in scenarios on a loopback port, so
// it runs offline:
//
//	go run ./timeline                          # the mid-sentence-stall scenario
//	go run ./timeline -url http://localhost:8000 -model my-model
//	go run ./timeline -live                    # the same stream on drip's live screen
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
	"github.com/driplab/drip/views"
)

// stallMS is the gap drip counts as a stall by default.
const stallMS = 250

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "timeline:", err)
		os.Exit(1)
	}
}

// run parses args, measures one stream and prints its figures and its
// timeline on w. With -live it hands the stream to drip's live screen
// instead.
func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("timeline", flag.ContinueOnError)
	url := fs.String("url", "", "the endpoint (default: drip's scenarios on a loopback port)")
	format := fs.String("format", "openai-chat", "the wire format, or auto")
	model := fs.String("model", "mid-sentence-stall", "the model, which names the scenario on drip's server")
	width := fs.Int("width", 100, "the timeline's width in cells")
	out := fs.String("out", "", "also write the record to this JSON Lines file")
	live := fs.Bool("live", false, "show the stream on drip's live screen")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" {
		srv := httptest.NewServer(fixtures.NewServer())
		defer srv.Close()
		*url = srv.URL
	}
	endpoint, f, err := probe.ResolveURL(*url, *format)
	if err != nil {
		return err
	}
	target := probe.Target{URL: endpoint, Format: f, Request: adapters.Request{Model: *model, Prompt: probe.DefaultPrompt}}
	opts := probe.Options{StallMS: stallMS}
	if *live {
		return watch(ctx, target, opts)
	}
	// Stream fills in the record it is given, so a caller can set the run
	// id and sequence number first.
	rec := probe.Stream(ctx, target, opts, &record.Record{RunID: probe.NewRunID()}, nil)
	if *out != "" {
		if err := save(*out, rec); err != nil {
			return err
		}
	}
	return report(w, rec, *width)
}

// report prints the stream's figures, its summary and its timeline.
func report(w io.Writer, rec *record.Record, width int) error {
	if rec.Error != nil {
		return fmt.Errorf("the stream failed (%s): %s", rec.Error.Class, rec.Error.Message)
	}
	fmt.Fprintf(w, "status %s · ttft %s ms · e2e %s ms · %d tokens · %d stalls\n",
		rec.Status, ms(rec.TTFTMS), ms(rec.E2EMS), rec.OutputTokens, len(rec.Stalls))
	agg := stats.NewAggregate(stallMS)
	agg.Add(rec)
	sum := agg.Summary(stats.Workload{})
	fmt.Fprintf(w, "summary: %d attempted, %d completed\n", sum.Streams.Attempted, sum.Streams.Completed)
	st := views.NewStyles(true, false)
	cur := &views.Stream{Run: 1, Phase: views.PhaseDone, Record: rec}
	fmt.Fprintln(w, views.Timeline(cur, nil, 0, width, 4, &st))
	return nil
}

// save writes rec to a new record file at path, which drip view reads.
func save(path string, rec *record.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	rw := record.NewWriter(f)
	return errors.Join(rw.Write(rec), rw.Close())
}

// watch runs drip's live screen over one source that sends target.
func watch(ctx context.Context, target probe.Target, opts probe.Options) error {
	src := tui.StreamSource(target.Request.Model, probe.NewRunID(), target, opts)
	m := tui.New(ctx, tui.Config{Sources: []tui.Source{src}, StallMS: stallMS, Color: true})
	_, err := tea.NewProgram(m).Run()
	m.Wait()
	return err
}

// ms is an optional time in milliseconds, or — when there is none.
func ms(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", *v)
}
