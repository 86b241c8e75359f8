package htmlreport

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// header is what was measured, the accounting, the figures of note, the
// diagnosis hints with their evidence and the gates' verdicts.
type header struct {
	Facts      []fact
	Accounting string
	Figures    []string
	Hints      []stats.Diagnosis
	Gates      []gate
}

// fact is one line of what was measured.
type fact struct{ Name, Value string }

// gate is one gate's verdict, its mark spelled out for print and no colour.
type gate struct {
	Run     string // the run's letter in a comparison; "" for one run
	Expr    string
	Message string
	Tripped bool
}

// newHeader is the header of a run; sw is its sweep (nil: none).
func newHeader(s *stats.Summary, recs []*record.Record, sw *sweep.Result) header {
	h := header{Facts: facts(s, recs, sw), Accounting: accounting(&s.Streams), Figures: figures(s), Hints: s.Diagnosis}
	for _, g := range s.Gates {
		h.Gates = append(h.Gates, gate{Expr: g.Expr, Message: g.Message, Tripped: g.Tripped})
	}
	return h
}

// facts are the workload as the summary states it and the time span of
// the records.
func facts(s *stats.Summary, recs []*record.Record, sw *sweep.Result) []fact {
	wl := &s.Workload
	fs := []fact{{"target", wl.Target}, {"format", wl.Format}}
	if wl.Model != "" {
		fs = append(fs, fact{"model", wl.Model})
	}
	fs = append(fs, fact{"workload", workloadLine(wl, sw)}, fact{"warmup", warmupLine(s.Streams.Warmup, wl)})
	if when := span(recs); when != "" {
		fs = append(fs, fact{"when", when})
	}
	if wl.Version != "" {
		fs = append(fs, fact{"drip version", wl.Version})
	}
	if len(wl.Hosts) > 0 {
		fs = append(fs, fact{"hosts", strings.Join(wl.Hosts, ", ")})
	}
	for i := range fs {
		fs[i].Value = sanitize.Line(fs[i].Value)
	}
	return fs
}

// workloadLine is the load in words; a sweep's workload.runs is per
// level, as in the text report.
func workloadLine(wl *stats.Workload, sw *sweep.Result) string {
	parts := []string{stats.Count(wl.Runs, "measured stream")}
	if sw != nil {
		parts = []string{stats.Count(wl.Runs, "measured stream") + " per level", fmt.Sprintf("%s at %d levels", sw.Kind, len(sw.Levels))}
	}
	if wl.Concurrency > 0 {
		parts = append(parts, "concurrency "+strconv.Itoa(wl.Concurrency))
	}
	if wl.Rate > 0 {
		parts = append(parts, "rate "+textfmt.FormatFloat(wl.Rate)+"/s "+wl.ArrivalWords())
	}
	if wl.Duration != "" {
		parts = append(parts, "duration "+wl.Duration)
	}
	if wl.MaxTokens > 0 {
		parts = append(parts, "max tokens "+strconv.Itoa(wl.MaxTokens))
	}
	if len(wl.PromptIDs) > 0 {
		parts = append(parts, "prompts "+strings.Join(wl.PromptIDs, ", "))
	}
	return strings.Join(parts, " · ")
}

// warmupLine says the warmup streams left out and the rule that left them
// out, as the text report does.
func warmupLine(n int, wl *stats.Workload) string {
	if n == 0 && wl.Warmup == 0 {
		return "none"
	}
	if wl.WarmupRule == "" {
		return stats.Count(n, "stream") + ", excluded from every figure"
	}
	return stats.Count(n, "stream") + ": " + wl.WarmupRule
}

// span is when the records started, first to last, in UTC.
func span(recs []*record.Record) string {
	var lo, hi int64
	for _, r := range recs {
		if r.StartUnixNS <= 0 {
			continue
		}
		if lo == 0 || r.StartUnixNS < lo {
			lo = r.StartUnixNS
		}
		hi = max(hi, r.StartUnixNS)
	}
	if lo == 0 {
		return ""
	}
	const layout = "2006-01-02 15:04:05 UTC"
	first := time.Unix(0, lo).UTC().Format(layout)
	if hi-lo < int64(time.Second) {
		return first
	}
	return first + " to " + time.Unix(0, hi).UTC().Format(layout) + " (stream starts)"
}

// accounting puts every attempt in one bucket, as the text report's
// streams line does.
func accounting(st *stats.Streams) string {
	return fmt.Sprintf("%d attempted · %d admitted · %d completed · %d failed%s · %d incomplete · %d canceled · %d buffered",
		st.Attempted, st.Admitted, st.Completed, st.Failed, report.ByClass(st.FailedBy), st.Incomplete, st.Canceled, st.Buffered)
}

// figures are the stalls, throughput and goodput lines.
func figures(s *stats.Summary) []string {
	sl := &s.Stalls
	longest := "none"
	if sl.LongestMS != nil {
		longest = textfmt.MS(*sl.LongestMS)
	}
	out := []string{fmt.Sprintf("stalls: %d (%d mid-sentence) in %s · longest %s · threshold %s",
		sl.Count, sl.MidSentence, stats.Count(sl.StreamsWithStall, "stream"), longest, textfmt.MS(sl.ThresholdMS))}
	if tp := &s.Throughput; tp.TokensPerS != nil {
		out = append(out, fmt.Sprintf("throughput: %s tok/s (%d tokens over a %s window) · mean of per-stream tps/user %s",
			textfmt.FormatFloat(*tp.TokensPerS), tp.OutputTokens, textfmt.MS(*tp.WindowMS), textfmt.Num(tp.MeanTPSUser)))
	} else {
		out = append(out, "throughput: — (no completed stream)")
	}
	if g := s.Goodput; g != nil {
		out = append(out, fmt.Sprintf("goodput: %s%% (%d of %d streams completed and met %s)", textfmt.Num(g.Pct), g.Met, g.Of, g.SLO))
	}
	if line := report.WitnessText(s.Witness); line != "" {
		out = append(out, "the client's kernel: "+line)
	}
	return out
}
