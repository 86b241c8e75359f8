package calibrate_test

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/calibrate"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/recorder"
	"github.com/driplab/drip/stats"
)

// BenchmarkServedRecording measures how closely drip fixtures serve --from
// reproduces a recording, beside drip calibrate's own error in the same run:
// the calibrate scenario (200 frames 10 ms apart) is recorded through drip
// record's proxy from the fixture server, served back at --speed 1 and 2
// (absolute schedule, a listener with TCP_NODELAY) and read by the probe as
// drip run reads it; every iteration also streams one calibrate stream, so
// both meet the same load. Served errors are frame by frame: the TTFT and
// each gap against the recorded ones divided by the speed.
//
//	go test ./calibrate -run '^$' -bench ServedRecording -benchtime 10x
func BenchmarkServedRecording(b *testing.B) {
	fx := calibrate.InProcess()
	defer fx.Close()
	rec := recordCalibrate(b, fx.URL())
	o := probe.Options{Client: probe.NewClient(0), StallMS: stats.DefaultStall}
	for _, speed := range []float64{1, 2} {
		b.Run(fmt.Sprintf("speed=%g", speed), func(b *testing.B) {
			srv, err := fixtures.NewRecorded([]*record.Record{rec}, fixtures.RecordedOptions{Speed: speed})
			if err != nil {
				b.Fatal(err)
			}
			hs := httptest.NewUnstartedServer(srv)
			hs.Listener = fixtures.NoDelay(hs.Listener)
			hs.Start()
			defer hs.Close()
			var cal calibrate.Level
			var ttftErr, gapErr []float64
			want := rec.Gaps()
			for b.Loop() {
				l, err := calibrate.Run(context.Background(), fx, target(fx.URL(), calibrate.Scenario), o, 1, 1)
				if err != nil || l.Unpaired > 0 {
					b.Fatalf("calibrate: %v, %d frames unpaired", err, l.Unpaired)
				}
				cal.StampErr, cal.GapErr, cal.TTFTErr = append(cal.StampErr, l.StampErr...), append(cal.GapErr, l.GapErr...), append(cal.TTFTErr, l.TTFTErr...)
				got := probe.Stream(context.Background(), target(hs.URL, calibrate.Scenario), o, &record.Record{}, nil)
				if got.TTFTMS == nil || len(got.Gaps()) != len(want) {
					b.Fatalf("served stream: status %s, %d gaps, want %d", got.Status, len(got.Gaps()), len(want))
				}
				ttftErr = append(ttftErr, *got.TTFTMS-*rec.TTFTMS/speed)
				for i, g := range got.Gaps() {
					gapErr = append(gapErr, math.Abs(g-want[i]/speed))
				}
			}
			report(b, "", ttftErr, gapErr)
			report(b, "cal-", cal.TTFTErr, cal.GapErr)
			b.ReportMetric(p(cal.StampErr, 99), "cal-stamp-err-p99-ms")
			late := srv.Lateness()
			b.ReportMetric(float64(late.Late), "late-writes")
			b.ReportMetric(float64(late.Max)/1e6, "late-max-ms")
		})
	}
}

func report(b *testing.B, prefix string, ttft, gap []float64) {
	b.ReportMetric(p(ttft, 50), prefix+"ttft-err-p50-ms")
	b.ReportMetric(p(ttft, 100), prefix+"ttft-err-max-ms")
	b.ReportMetric(p(gap, 50), prefix+"gap-err-p50-ms")
	b.ReportMetric(p(gap, 99), prefix+"gap-err-p99-ms")
	b.ReportMetric(p(gap, 100), prefix+"gap-err-max-ms")
}

func p(v []float64, pct float64) float64 {
	slices.Sort(v)
	return stats.Percentile(v, pct)
}

func target(base, model string) probe.Target {
	return probe.Target{URL: base + "/v1/chat/completions", Format: adapters.Lookup("openai-chat"), Request: adapters.Request{Model: model, Prompt: "hi"}}
}

// recordCalibrate records one calibrate stream through drip record's proxy.
func recordCalibrate(b *testing.B, upstream string) *record.Record {
	u, _ := url.Parse(upstream)
	var recs []*record.Record
	proxy := recorder.New(context.Background(), recorder.Options{Upstream: u}, func(r *record.Record) { recs = append(recs, r) })
	ps := httptest.NewServer(proxy)
	defer ps.Close()
	got := probe.Stream(context.Background(), target(ps.URL, calibrate.Scenario), probe.Options{}, &record.Record{}, nil)
	proxy.Wait()
	if len(recs) != 1 || got.Status != record.StatusComplete || recs[0].Exchange == nil || recs[0].TTFTMS == nil {
		b.Fatalf("%d records through the proxy, client %s", len(recs), got.Status)
	}
	return recs[0]
}
