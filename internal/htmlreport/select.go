package htmlreport

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/driplab/drip/record"
)

// maxTimelines is how many streams of a run get a timeline of their own.
// Past it, a third are the slowest, a third those with the longest
// stalls, and the rest sampled evenly. The aggregate panels cover every
// stream whatever the count.
const maxTimelines = 30

// measured are the records every figure counts, neither warmup nor a
// request that did not stream.
func measured(recs []*record.Record) []*record.Record {
	var out []*record.Record
	for _, r := range recs {
		if r.Phase != record.PhaseWarmup && r.Phase != record.PhasePassthrough {
			out = append(out, r)
		}
	}
	return out
}

// chosen is a record picked for a timeline, and why ("" when every
// stream has one).
type chosen struct {
	r   *record.Record
	why string
}

// selectStreams picks at most limit of recs for timelines and says which
// on the page.
func selectStreams(recs []*record.Record, limit int) ([]chosen, string) {
	if len(recs) <= limit {
		out := make([]chosen, len(recs))
		for i, r := range recs {
			out[i] = chosen{r, ""}
		}
		return out, fmt.Sprintf("Timelines of every measured stream (%d).", len(recs))
	}
	taken := map[*record.Record]bool{}
	var out []chosen
	take := func(rs []*record.Record, n int, why string) int {
		k := 0
		for _, r := range rs {
			if k == n {
				break
			}
			if !taken[r] {
				taken[r], k = true, k+1
				out = append(out, chosen{r, why})
			}
		}
		return k
	}
	slowest := slices.SortedStableFunc(slices.Values(recs), func(a, b *record.Record) int { return cmp.Compare(b.DurationMS, a.DurationMS) })
	nSlow := take(slowest, limit/3, "slowest")
	stalled := slices.DeleteFunc(slices.Clone(recs), func(r *record.Record) bool { return len(r.Stalls) == 0 })
	slices.SortStableFunc(stalled, func(a, b *record.Record) int { return cmp.Compare(longestStall(b), longestStall(a)) })
	nStall := take(stalled, limit/3, "longest stalls")
	rest := slices.DeleteFunc(slices.Clone(recs), func(r *record.Record) bool { return taken[r] })
	var sample []*record.Record
	for i, want := 0, limit-len(out); i < want && len(rest) > 0; i++ {
		sample = append(sample, rest[i*len(rest)/want])
	}
	nSample := take(sample, len(sample), "sample")
	return out, fmt.Sprintf("Timelines of %d of %d measured streams: the %d slowest (by duration), the %d with the longest stalls (of %d with a stall), and %d sampled evenly in sequence. The panels above cover every stream.",
		len(out), len(recs), nSlow, nStall, len(stalled), nSample)
}

func longestStall(r *record.Record) float64 {
	longest := 0.0
	for _, s := range r.Stalls {
		longest = max(longest, s.GapMS)
	}
	return longest
}
