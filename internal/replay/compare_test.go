package replay_test

import (
	"slices"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/record"
)

// TestLiveReplayBannerLeavesOutProgress: the live replay screen's
// workload banner warned, before the first replayed stream ended, that
// format, model, prompt ids, stall threshold… differed (from nothing), and
// then that the measured streams did (6 recorded, 5 replayed so far); while
// the replay runs it leaves out what progress explains and keeps a real
// difference, and the final comparison says everything.
func TestLiveReplayBannerLeavesOutProgress(t *testing.T) {
	t.Parallel()
	var recorded, replayed []*record.Record
	for i, p := range []string{"p1", "p2", "p3"} {
		r := recordtest.Scenario(t, "steady", &record.Record{V: record.RecordVersion, Seq: i, PromptID: p, Target: "http://upstream.invalid/v1/chat/completions",
			Workload: &record.RecordWorkload{Version: "0.9-recorded"}})
		recorded = append(recorded, r)
		again := *r
		again.Target, again.Workload = "http://127.0.0.1:1/v1/chat/completions", &record.RecordWorkload{Version: "1.0"}
		replayed = append(replayed, &again)
	}
	in := compare.Input{Label: "recorded", Records: recorded}
	settings := func(c *compare.Comparison) []string {
		var s []string
		for _, d := range c.Workload {
			s = append(s, d.Setting)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		recs  []*record.Record
		final bool
		want  []string
		label string
	}{
		{"none replayed yet", nil, false, nil, "replayed 0 of 3"},
		{"1 of 3 replayed", replayed[:1], false, []string{"drip version"}, "replayed 1 of 3"},
		{"stopped after 1 of 3", replayed[:1], true, []string{"prompt ids", "measured streams", "drip version"}, "replayed 1 of 3"},
		{"all replayed", replayed, true, []string{"drip version"}, "replayed"},
	} {
		c := replay.LiveComparison(in, tc.recs, 3, false, tc.final, nil)
		if got := settings(c); !slices.Equal(got, tc.want) || c.Runs[1].Label != tc.label {
			t.Errorf("%s: the banner warns of %q, the replay is labelled %q; want %q, %q", tc.name, got, c.Runs[1].Label, tc.want, tc.label)
		}
	}
}
