package replay_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// A replay keeps the recorded spacing on the bubble's clock, where every
// arrival is on time: each replayed stream's intended start is its
// recorded offset from the first, and the replay reports the schedule lag
// of all three arrivals (0 ms), within the bound, none refused.
func TestReplayReportsItsScheduleLag(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(fixtures.NewServer())
		defer up.Close()
		var streams []*record.Record
		for _, off := range []float64{1000, 1200, 1700} {
			r := recordedChat("fast", 100, record.StatusComplete)
			r.RunOffsetMS = off
			streams = append(streams, r)
		}
		o := replay.Options{Against: up.URL, Probe: probe.Options{Dial: up.Dial}}
		var intended []float64
		st := replay.Run(context.Background(), streams, o, func(r *record.Record) { intended = append(intended, *r.IntendedStartMS) })
		if len(intended) != 3 || intended[0] != 0 || intended[1] != 200 || intended[2] != 700 {
			t.Errorf("intended starts %v ms, want [0 200 700]", intended)
		}
		if st.Lag.N != 3 || st.Lag.Max == nil || *st.Lag.Max != 0 || st.NotAdmitted != 0 || st.ClientLimited {
			t.Errorf("lag n=%d max %v, %d not admitted, client-limited %v; want 3 arrivals on time", st.Lag.N, st.Lag.Max, st.NotAdmitted, st.ClientLimited)
		}
		want := "schedule lag p50 0 ms p99 0 ms max 0 ms (n=3), bound p99 10 ms: within · 0 not admitted (over 256 in flight)"
		if got := o.Lag(st); got != want {
			t.Errorf("said %q, want %q", got, want)
		}
		o.Concurrency = 2
		if got := o.Lag(st); got != "" {
			t.Errorf("a closed loop said %q of a schedule it does not have", got)
		}
	})
}

// A replay admits at most probe.DefaultMaxInflight streams in flight, as
// run's open loop does: one more recorded at the same instant, while the
// others are still in flight, is refused and counted, not queued.
func TestReplayAdmitsAtMostMaxInflight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(fixtures.NewServer())
		defer up.Close()
		streams := make([]*record.Record, probe.DefaultMaxInflight+1)
		for i := range streams {
			streams[i] = recordedChat("fast", 100, record.StatusComplete)
		}
		n := 0
		st := replay.Run(context.Background(), streams, replay.Options{Against: up.URL, Probe: probe.Options{Dial: up.Dial}}, func(*record.Record) { n++ })
		if n != probe.DefaultMaxInflight || st.NotAdmitted != 1 || st.Lag.N != len(streams) {
			t.Errorf("%d replayed, %d not admitted, lag n=%d; want %d, 1, %d", n, st.NotAdmitted, st.Lag.N, probe.DefaultMaxInflight, len(streams))
		}
		if s := (replay.Options{}).Lag(st); !strings.Contains(s, "1 not admitted (over 256 in flight)") {
			t.Errorf("said %q", s)
		}
	})
}

// A replay with Duration and no Rate cycles through the recorded spacing,
// round after round, until the duration has passed: streams recorded 500
// ms apart (a span of 1 s) are sent at 0, 500, 1000 and 1500 ms of a 2 s
// replay, and no more.
func TestReplayForADurationRepeatsTheRecordedSpacing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(fixtures.NewServer())
		defer up.Close()
		var streams []*record.Record
		for _, off := range []float64{300, 800} {
			r := recordedChat("fast", 100, record.StatusComplete)
			r.RunOffsetMS = off
			streams = append(streams, r)
		}
		o := replay.Options{Against: up.URL, Duration: 2 * time.Second, Probe: probe.Options{Dial: up.Dial}}
		if err := o.CheckSchedule(streams); err != nil {
			t.Fatalf("refused a recording that spans 1 s: %v", err)
		}
		var intended []float64
		replay.Run(context.Background(), streams, o, func(r *record.Record) { intended = append(intended, *r.IntendedStartMS) })
		slices.Sort(intended)
		if want := []float64{0, 500, 1000, 1500}; !slices.Equal(intended, want) {
			t.Errorf("intended starts %v ms, want %v", intended, want)
		}
	})
}

// A recording whose streams all start at once spans 0 ms: its spacing
// cannot be repeated for a Duration, so CheckSchedule refuses it unless
// Rate or Concurrency shape the load, and Run, given it anyway, sends each
// stream once rather than spin at the instant 0.
func TestReplayForADurationRefusesARecordingThatSpansNoTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(fixtures.NewServer())
		defer up.Close()
		streams := []*record.Record{recordedChat("fast", 100, record.StatusComplete), recordedChat("fast", 100, record.StatusComplete)}
		o := replay.Options{Against: up.URL, Duration: 2 * time.Second, Probe: probe.Options{Dial: up.Dial}}
		err := o.CheckSchedule(streams)
		if want := "--duration 2s repeats the recorded spacing, but the recording (2 streams) spans 0 ms: give --rate or --concurrency to cycle through it"; err == nil || err.Error() != want {
			t.Errorf("said %v, want %q", err, want)
		}
		for _, shaped := range []replay.Options{{Duration: time.Second, Rate: 5}, {Duration: time.Second, Concurrency: 2}, {}} {
			if err := shaped.CheckSchedule(streams); err != nil {
				t.Errorf("%+v refused: %v", shaped, err)
			}
		}
		n := 0
		replay.Run(context.Background(), streams, o, func(*record.Record) { n++ })
		if n != 2 {
			t.Errorf("%d replayed, want each of the 2 once", n)
		}
	})
}

// Replayable is the streams to send, or why there are none to send as
// asked: nothing replayable in the file, or a Duration on no span.
func TestReplayableSaysWhyNot(t *testing.T) {
	t.Parallel()
	put := recordedChat("fast", 100, record.StatusComplete)
	put.Exchange.Method = "PUT"
	if _, err := (replay.Options{}).Replayable([]*record.Record{put}); err == nil || !strings.HasPrefix(err.Error(), "no recorded stream to replay, only 1 stream sent with PUT") {
		t.Errorf("only a PUT: %v", err)
	}
	two := []*record.Record{recordedChat("fast", 100, record.StatusComplete), recordedChat("fast", 100, record.StatusComplete)}
	if _, err := (replay.Options{Duration: time.Second}).Replayable(two); err == nil || !strings.Contains(err.Error(), "spans 0 ms") {
		t.Errorf("a duration on no span: %v", err)
	}
	if got, err := (replay.Options{}).Replayable(two); len(got) != 2 || err != nil {
		t.Errorf("two streams: got %d, %v", len(got), err)
	}
}
