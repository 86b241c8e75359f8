package fleet

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// ReadSummary reads one drip run --json summary, b, that source names: a
// JSON object with this drip's record version and a workload target ("{}"
// or a compare --json has none).
func ReadSummary(b []byte, source string) (stats.Summary, error) {
	var s stats.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return stats.Summary{}, fmt.Errorf("%s: not a drip run --json summary: %v", source, err)
	}
	if s.V != record.RecordVersion || s.Workload.Target == "" {
		return stats.Summary{}, fmt.Errorf("%s: not a drip run --json summary (no \"v\": %d and workload.target)", source, record.RecordVersion)
	}
	return s, nil
}

// MergeSummaries pools the --json summaries of runs of one workload, when
// the raw records are too big to move: counts are added, and every
// distribution comes from the merged histograms the summaries carry —
// never from averaging their percentiles — so n, min, max and mean are
// exact and percentiles within the histograms' relative error of the
// percentile over all the raw values. Throughput in tokens per second is
// not pooled: each run's window is on its own host's clock.
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
		addStreams(&out.Streams, &s.Streams)
		out.Workload.Runs += s.Workload.Runs
		out.Workload.Warmup += s.Workload.Warmup
		out.Workload.Hosts = union(out.Workload.Hosts, s.Workload.Hosts)
		out.Workload.PromptIDs = union(out.Workload.PromptIDs, s.Workload.PromptIDs)
		addStalls(&out.Stalls, &s.Stalls)
		out.Freezes.Add(s.Freezes)
		addSignals(&out.Signals, &s.Signals)
		out.Witness = stats.PoolWitness(out.Witness, s.Witness)
		out.Throughput.OutputTokens += s.Throughput.OutputTokens
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
// approximated: its share is of Streams.WithTokenCount, never of every
// admitted stream (stats.TokensApproxDefinition).
func approximated(s *stats.Summary, source string) (int, error) {
	if s.TokensApproxPct == nil {
		return 0, nil
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

func addStreams(dst, s *stats.Streams) {
	dst.Attempted += s.Attempted
	dst.Admitted += s.Admitted
	dst.Completed += s.Completed
	dst.Failed += s.Failed
	dst.Incomplete += s.Incomplete
	dst.Canceled += s.Canceled
	dst.Buffered += s.Buffered
	dst.Warmup += s.Warmup
	dst.WithTokenCount += s.WithTokenCount
	for k, v := range s.FailedBy {
		dst.FailedBy[k] += v
	}
	dst.FailedMessages = stats.MergeFailureMessages(dst.FailedMessages, s.FailedMessages)
}

func addStalls(dst, s *stats.Stalls) {
	dst.Count += s.Count
	dst.MidSentence += s.MidSentence
	dst.StreamsWithStall += s.StreamsWithStall
	if s.LongestMS != nil && (dst.LongestMS == nil || *s.LongestMS > *dst.LongestMS) {
		dst.LongestMS = new(*s.LongestMS)
	}
}

// addSignals pools the stream shapes the diagnosis reads: counts add, the
// largest burst and the longest silence are the largest of any run.
func addSignals(dst, s *stats.Signals) {
	dst.ContentFrames += s.ContentFrames
	dst.CoalescedFrames += s.CoalescedFrames
	dst.FirstBursts += s.FirstBursts
	dst.Stutter += s.Stutter
	dst.FirstBurstMax = max(dst.FirstBurstMax, s.FirstBurstMax)
	dst.ZeroContent += s.ZeroContent
	dst.NoFrames += s.NoFrames
	dst.NotStream += s.NotStream
	if dst.NotStreamWhy == "" {
		dst.NotStreamWhy = s.NotStreamWhy
	}
	dst.Compressed += s.Compressed
	dst.ContentStreams += s.ContentStreams
	dst.ReadBuffered += s.ReadBuffered
	dst.LargestBurstFrames = max(dst.LargestBurstFrames, s.LargestBurstFrames)
	dst.LargestBurstBytes = max(dst.LargestBurstBytes, s.LargestBurstBytes)
	dst.LongestSilenceMS = max(dst.LongestSilenceMS, s.LongestSilenceMS)
}

// metricsOf reads every registry metric from the pooled histograms; one
// without a histogram has no samples.
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
