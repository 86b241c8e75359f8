package views

import (
	"fmt"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// TestTimelineCacheDrawsWhatTimelineDraws: a timeline drawn through a
// cache while its stream grows, a read at a time and cut inside reads, its
// frames moving to a new array as the probe's append moves them, zoomed
// and not, with earlier runs and without, is the timeline drawn whole at
// every step, as is a lane; so is a finished stream after a live one, and
// a new stream after it.
func TestTimelineCacheDrawsWhatTimelineDraws(t *testing.T) {
	t.Parallel()
	st := NewStyles(true, true)
	earlier := []*record.Record{replay(t, "mid-sentence-stall", 0), replay(t, "steady", 1)}
	caches := map[int]*[2]TimelineCache{40: {}, 120: {}} // a timeline's and a lane's at each width
	for _, name := range fixtures.Names() {
		final := replay(t, name, 2)
		all := final.Frames[:min(len(final.Frames), 300)] // enough to cross axis steps, few enough to derive at each
		for _, zoom := range []float64{0, 500} {
			var frames []record.Frame
			for k, step := 0, 0; k < len(all); step++ {
				n := min(len(all), k+1+step%3) // one to three frames: cut inside reads too
				if step%5 == 0 {
					frames = append([]record.Frame(nil), frames...) // the array moves
				}
				frames = append(frames, all[k:n]...)
				k = n
				live := *final
				live.Frames = frames
				live.Status, live.DurationMS = "", frames[len(frames)-1].TMS
				_ = stats.Derive(&live, stats.DefaultStall)
				cur := &Stream{Run: 3, Phase: PhaseStreaming, ElapsedMS: frames[len(frames)-1].TMS + float64(step%4)*300, Record: &live}
				checkCached(t, fmt.Sprintf("%s zoom %v step %d", name, zoom, step), caches, cur, earlier, zoom, &st)
			}
			checkCached(t, name+" done", caches, &Stream{Run: 3, Phase: PhaseDone, Record: final}, earlier[:1], zoom, &st)
		}
	}
}

// checkCached fails t when the timeline or the lane drawn through a cache
// differs from the one drawn whole.
func checkCached(t *testing.T, what string, caches map[int]*[2]TimelineCache, cur *Stream, earlier []*record.Record, zoom float64, st *Styles) {
	t.Helper()
	for w, cs := range caches {
		c, lane := &cs[0], &cs[1]
		if got, want := c.Timeline(cur, earlier, zoom, w, 6, st), Timeline(cur, earlier, zoom, w, 6, st); got != want {
			t.Fatalf("%s at %d columns: the cached timeline differs:\n%s\nwant:\n%s", what, w, got, want)
		}
		to := AxisEnd(cur.endMS())
		if got, want := lane.Lane(cur, earlier, to, w, 4, st), TimelineLane(cur, earlier, to, w, 4, st); got != want {
			t.Fatalf("%s at %d columns: the cached lane differs:\n%s\nwant:\n%s", what, w, got, want)
		}
	}
}
