package fleet

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// ReadSummary reads one drip run --json summary, b, that source names. A
// summary is a JSON object with this drip's record version and a workload
// target. "{}" or a compare --json has none.
func ReadSummary(b []byte, source string) (stats.Summary, error) {
	var s stats.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return stats.Summary{}, fmt.Errorf("%s: not a drip run --json summary: %v", source, err)
	}
	if s.V != record.RecordVersion || s.Workload.Target == "" {
		return stats.Summary{}, fmt.Errorf("%s: not a drip run --json summary (no \"v\": %d and workload.target)", source, record.RecordVersion)
	}
	// Merge prints the target, and a hand-made summary's target may hold a
	// key.
	s.Workload.Target = redact.URL(s.Workload.Target)
	return s, nil
}

// MergeSummaries pools the --json summaries of runs of one workload, for
// when the raw records are too big to move. Counts are added. Every
// distribution comes from the merged histograms the summaries carry, never
// from averaging their percentiles. So n, min, max and mean are exact, and
// percentiles are within the histograms' relative error of the percentile
// over all the raw values. Throughput in tokens per second is not pooled,
// because each run's window is on its own host's clock.
func MergeSummaries(sums []stats.Summary, sources []string) (stats.Summary, error) {
	if err := sameWorkload(sums, sources); err != nil {
		return stats.Summary{}, err
	}
	first := sums[0]
	out := stats.Summary{
		V: record.RecordVersion, Conventions: first.Conventions, Workload: first.Workload,
		Streams:   stats.Streams{FailedBy: map[string]int{}},
		Stalls:    stats.Stalls{ThresholdMS: first.Stalls.ThresholdMS},
		PerPrompt: []stats.PromptStats{}, Diagnosis: []stats.Diagnosis{}, Gates: []stats.GateResult{},
		MergedFrom: sources,
	}
	of := fmt.Sprintf("%d summaries", len(sums))
	if len(sums) == 1 {
		of = "1 summary"
	}
	out.Conventions.Percentiles = fmt.Sprintf("pooled from the merged histograms of %s (never an average of percentiles): within %.2f%% of the percentile over all raw observations; n, min, max and mean exact", of, 100*stats.HistRelativeError)
	out.Workload.Runs, out.Workload.Warmup, out.Workload.Seed = 0, 0, 0
	samplers := map[string]*stats.Sampler{}
	approx := 0 // streams whose token count is approximated
	for i, s := range sums {
		if s.Histograms == nil {
			return out, fmt.Errorf("%s carries no histograms (written by a drip before summaries did): merge its records instead", sources[i])
		}
		if err := addCounts(&out, &s, sources[i]); err != nil {
			return out, err
		}
		out.Workload.Hosts = union(out.Workload.Hosts, s.Workload.Hosts)
		out.Workload.PromptIDs = union(out.Workload.PromptIDs, s.Workload.PromptIDs)
		out.Witness = stats.PoolWitness(out.Witness, s.Witness)
		n, err := approximated(&s, sources[i])
		if err != nil {
			return out, err
		}
		approx += n
		if err := mergeHistograms(samplers, s.Histograms.Metrics, sources[i]); err != nil {
			return out, err
		}
	}
	out.Metrics = metricsOf(samplers)
	out.Throughput.MeanTPSUser = stats.TPSUser.Of(out.Metrics).Mean
	out.Throughput.Definition = "output tokens of completed streams, summed over the merged summaries; tokens/s is not pooled (each run's window is on its own host's clock): see each summary"
	if n := out.Streams.WithTokenCount; n > 0 {
		out.TokensApproxPct = new(100 * float64(approx) / float64(n))
	}
	out.Histograms = &stats.SummaryHistograms{Buckets: stats.HistogramBuckets, Gamma: stats.HistGamma, MinValue: stats.HistMin,
		RelativeError: stats.HistRelativeError, Metrics: map[string]stats.HistogramJSON{}}
	for name, s := range samplers {
		out.Histograms.Metrics[name] = s.Export()
	}
	out.Diagnosis = stats.Diagnose(&out)
	return out, nil
}

// mergeHistograms merges one summary's histograms, read from source, into
// the samplers by metric name.
func mergeHistograms(samplers map[string]*stats.Sampler, hists map[string]stats.HistogramJSON, source string) error {
	for name, h := range hists {
		if samplers[name] == nil {
			samplers[name] = &stats.Sampler{}
		}
		if err := samplers[name].MergeJSON(h); err != nil {
			return fmt.Errorf("%s: histogram %s: %w", source, name, err)
		}
	}
	return nil
}

// approximated recovers a summary's count of streams whose token count is
// approximated. Its share is of Streams.WithTokenCount, never of every
// admitted stream (stats.TokensApproxDefinition).
func approximated(s *stats.Summary, source string) (int, error) {
	if s.TokensApproxPct == nil {
		return 0, nil
	}
	if p := *s.TokensApproxPct; !(p >= 0 && p <= 100) {
		return 0, fmt.Errorf("%s: tokens_approx_pct %g is no share: want 0 to 100", source, p)
	}
	if s.Streams.WithTokenCount == 0 {
		return 0, fmt.Errorf("%s gives tokens_approx_pct without streams.with_token_count (written by a drip before summaries did): merge its records instead", source)
	}
	return int(math.Round(*s.TokensApproxPct / 100 * float64(s.Streams.WithTokenCount))), nil
}

// sameWorkload refuses summaries whose workloads differ in what makes
// their figures comparable.
func sameWorkload(sums []stats.Summary, sources []string) error {
	key := func(s *stats.Summary) []string {
		w := &s.Workload
		return []string{w.Target, w.Format, w.Model, strconv.Itoa(w.MaxTokens), strconv.Itoa(w.Concurrency),
			strconv.FormatFloat(w.Rate, 'f', -1, 64), w.Arrival, strconv.FormatFloat(s.Stalls.ThresholdMS, 'f', -1, 64)}
	}
	names := []string{"target", "format", "model", "max tokens", "concurrency", "rate", "arrival", "stall threshold"}
	base := key(&sums[0])
	for i := range sums[1:] {
		k := key(&sums[i+1])
		for j := range k {
			if k[j] != base[j] {
				return fmt.Errorf("the summaries do not share a workload: %s is %q in %s and %q in %s", names[j], base[j], sources[0], k[j], sources[i+1])
			}
		}
	}
	return nil
}

// adder adds one file's counts to the pooled ones. A count is read from a
// file, so a negative one is refused, and so is a sum past 2^63−1,
// which would wrap (two counts of 2^63−1 merged to −2). The first error
// sticks and names the file.
type adder struct {
	source string
	err    error
}

func (a *adder) add(name string, dst *int, v int) {
	switch {
	case a.err != nil:
	case v < 0:
		a.err = fmt.Errorf("%s: %s is %d: a count is not negative", a.source, name, v)
	case *dst > math.MaxInt-v:
		a.err = fmt.Errorf("%s: %s: adding %d to the %d before it overflows a count", a.source, name, v, *dst)
	default:
		*dst += v
	}
}

// addCounts adds s's counts, which source holds, to out's. The largest
// burst and the longest silence and stall are the largest of any run.
func addCounts(out, s *stats.Summary, source string) error {
	a := &adder{source: source}
	addStreams(a, &out.Streams, &s.Streams)
	a.add("workload.runs", &out.Workload.Runs, s.Workload.Runs)
	a.add("workload.warmup", &out.Workload.Warmup, s.Workload.Warmup)
	a.add("stalls.count", &out.Stalls.Count, s.Stalls.Count)
	a.add("stalls.mid_sentence", &out.Stalls.MidSentence, s.Stalls.MidSentence)
	a.add("stalls.streams_with_stall", &out.Stalls.StreamsWithStall, s.Stalls.StreamsWithStall)
	if l := s.Stalls.LongestMS; l != nil && (out.Stalls.LongestMS == nil || *l > *out.Stalls.LongestMS) {
		out.Stalls.LongestMS = new(*l)
	}
	f := s.Freezes
	a.add("freezes.streams", &out.Freezes.Streams, f.Streams)
	a.add("freezes.first_held", &out.Freezes.FirstHeld, f.FirstHeld)
	a.add("freezes.count", &out.Freezes.Count, f.Count)
	f.Streams, f.FirstHeld, f.Count = 0, 0, 0 // added above, so Add takes only the extremes
	out.Freezes.Add(f)
	addSignals(a, &out.Signals, &s.Signals)
	a.add("throughput.output_tokens", &out.Throughput.OutputTokens, s.Throughput.OutputTokens)
	return a.err
}

func addStreams(a *adder, dst, s *stats.Streams) {
	a.add("streams.attempted", &dst.Attempted, s.Attempted)
	a.add("streams.admitted", &dst.Admitted, s.Admitted)
	a.add("streams.completed", &dst.Completed, s.Completed)
	a.add("streams.failed", &dst.Failed, s.Failed)
	a.add("streams.incomplete", &dst.Incomplete, s.Incomplete)
	a.add("streams.canceled", &dst.Canceled, s.Canceled)
	a.add("streams.buffered", &dst.Buffered, s.Buffered)
	a.add("streams.warmup", &dst.Warmup, s.Warmup)
	a.add("streams.with_token_count", &dst.WithTokenCount, s.WithTokenCount)
	for _, k := range slices.Sorted(maps.Keys(s.FailedBy)) {
		v := dst.FailedBy[k]
		a.add("streams.failed_by_class."+k, &v, s.FailedBy[k])
		dst.FailedBy[k] = v
	}
	dst.FailedMessages = stats.MergeFailureMessages(dst.FailedMessages, s.FailedMessages)
}

// addSignals pools the stream shapes the diagnosis reads. Counts add, and
// the largest burst and the longest silence are the largest of any run.
func addSignals(a *adder, dst, s *stats.Signals) {
	a.add("signals.content_frames", &dst.ContentFrames, s.ContentFrames)
	a.add("signals.coalesced_frames", &dst.CoalescedFrames, s.CoalescedFrames)
	a.add("signals.first_bursts", &dst.FirstBursts, s.FirstBursts)
	a.add("signals.stutter", &dst.Stutter, s.Stutter)
	a.add("signals.zero_content", &dst.ZeroContent, s.ZeroContent)
	a.add("signals.no_frames", &dst.NoFrames, s.NoFrames)
	a.add("signals.compressed", &dst.Compressed, s.Compressed)
	a.add("signals.content_streams", &dst.ContentStreams, s.ContentStreams)
	a.add("signals.read_buffered", &dst.ReadBuffered, s.ReadBuffered)
	a.add("signals.not_stream", &dst.NotStream, s.NotStream)
	dst.FirstBurstMax = max(dst.FirstBurstMax, s.FirstBurstMax)
	if dst.NotStreamWhy == "" {
		dst.NotStreamWhy = s.NotStreamWhy
	}
	dst.LargestBurstFrames = max(dst.LargestBurstFrames, s.LargestBurstFrames)
	dst.LargestBurstBytes = max(dst.LargestBurstBytes, s.LargestBurstBytes)
	dst.LongestSilenceMS = max(dst.LongestSilenceMS, s.LongestSilenceMS)
}

// metricsOf reads every registry metric from the pooled histograms. A
// metric without a histogram has no samples.
func metricsOf(s map[string]*stats.Sampler) stats.Metrics {
	out := stats.Metrics{}
	for _, m := range stats.Registry {
		out[m.JSON] = stats.Dist{}
		if s[m.JSON] != nil {
			out[m.JSON] = s[m.JSON].Dist()
		}
	}
	return out
}

func union(a, b []string) []string {
	set := map[string]bool{}
	for _, v := range append(slices.Clone(a), b...) {
		set[v] = true
	}
	return slices.Sorted(maps.Keys(set))
}
