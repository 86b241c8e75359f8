package report

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/sanitize"
	"github.com/driplab/drip/stats"
)

var csvHeader = []string{
	"run_id", "seq", "phase", "prompt_id", "format", "status", "error_class", "http_status",
	"headers_ms", "first_byte_ms", "ttft_ms", "ttfo_ms", "e2e_ms", "duration_ms", "tail_ms",
	"itl_ms", "tps_user", "output_tokens", "tokens_source", "content_frames", "coalesced_frames",
	"stalls", "mid_sentence_stalls", "buffered", "complete",
	"run_offset_ms", "intended_start_ms", // added last, so older readers' columns stay put
	// Each stream's gap distribution, reads and rate after the first
	// content: enough to draw the TTFT × gap p99 scatter from the CSV.
	"gap_p50_ms", "gap_p95_ms", "gap_p99_ms", "gap_max_ms", "reads", "post_first_content_tps",
	// Where and when a stream ran, for joining with server logs.
	"model", "target", "start_time", "input_tokens",
}

// CSV writes one row per stream; undefined figures are empty cells.
type CSV struct{ w *csv.Writer }

// NewCSV writes the header row.
func NewCSV(w io.Writer) (*CSV, error) {
	c := &CSV{csv.NewWriter(w)}
	return c, c.flush(csvHeader)
}

// Write adds a record's row and flushes it.
func (c *CSV) Write(r *record.Record) error {
	class := ""
	if r.Error != nil {
		class = r.Error.Class
	}
	return c.flush(append([]string{
		r.RunID, strconv.Itoa(r.Seq), r.Phase, r.PromptID, r.Format, r.Status, class, strconv.Itoa(r.HTTPStatus),
		cell(r.HeadersMS), cell(r.FirstByteMS), cell(r.TTFTMS), cell(r.TTFOMS), cell(r.E2EMS),
		ms(r.DurationMS), cell(r.TailMS), cell(r.ITLMS), cell(r.TPSUser),
		strconv.Itoa(r.OutputTokens), r.TokensSource, strconv.Itoa(r.ContentFrames), strconv.Itoa(r.CoalescedFrames),
		strconv.Itoa(len(r.Stalls)), strconv.Itoa(r.MidSentenceStalls()), strconv.FormatBool(r.Buffered), strconv.FormatBool(r.Complete),
		ms(r.RunOffsetMS), cell(r.IntendedStartMS),
	}, append(gapCells(r), whereCells(r)...)...))
}

// whereCells are a stream's model, target, wall-clock start (RFC 3339,
// UTC) and the server's prompt token count.
func whereCells(r *record.Record) []string {
	start := ""
	if r.StartUnixNS != 0 {
		start = time.Unix(0, r.StartUnixNS).UTC().Format(time.RFC3339Nano)
	}
	in := ""
	if r.InputTokens != nil {
		in = strconv.Itoa(*r.InputTokens)
	}
	// Stripped of control sequences: a CSV ends up printed in a terminal.
	return []string{sanitize.Line(r.Model), sanitize.Line(r.Target), start, in}
}

// gapCells are a stream's gap p50, p95, p99 and max, its reads and its
// post-first-content rate; empty cells where undefined.
func gapCells(r *record.Record) []string {
	gaps := slices.Clone(r.Gaps())
	slices.Sort(gaps)
	out := []string{"", "", "", ""}
	if len(gaps) > 0 {
		for i, p := range []float64{50, 95, 99} {
			out[i] = ms(stats.Percentile(gaps, p))
		}
		out[3] = ms(gaps[len(gaps)-1])
	}
	return append(out, strconv.Itoa(r.Reads), cell(PostFirstContentTPS(r)))
}

// PostFirstContentTPS is a stream's output tokens after the first content
// frame over the time from it to the last one, in tokens per second:
// unlike tps_user it is given for buffered and incomplete streams too, so
// a burst shows as a very high rate rather than a blank. Nil with fewer
// than two tokens or no time between first and last content.
func PostFirstContentTPS(r *record.Record) *float64 {
	if r.TTFTMS == nil || r.OutputTokens < 2 {
		return nil
	}
	last := 0.0
	for i := len(r.Frames) - 1; i >= 0; i-- {
		if r.Frames[i].IsContent() {
			last = r.Frames[i].TMS
			break
		}
	}
	span := last - *r.TTFTMS
	if span <= 0 {
		return nil
	}
	v := float64(r.OutputTokens-1) / (span / 1000)
	return &v
}

func (c *CSV) flush(row []string) error {
	if err := c.w.Write(row); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}

// cell is an optional figure: empty when undefined.
func cell(v *float64) string {
	if v == nil {
		return ""
	}
	return ms(*v)
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
