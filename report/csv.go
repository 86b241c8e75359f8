package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/driplab/drip/probe"
)

var csvHeader = []string{
	"run_id", "seq", "phase", "prompt_id", "format", "status", "error_class", "http_status",
	"headers_ms", "first_byte_ms", "ttft_ms", "ttfo_ms", "e2e_ms", "duration_ms", "tail_ms",
	"itl_ms", "tps_user", "output_tokens", "tokens_source", "content_frames", "coalesced_frames",
	"stalls", "mid_sentence_stalls", "buffered", "complete",
	"run_offset_ms", "intended_start_ms", // added last, so older readers' columns stay put
}

// CSV writes one row per stream; undefined figures are empty cells.
type CSV struct{ w *csv.Writer }

// NewCSV writes the header row.
func NewCSV(w io.Writer) (*CSV, error) {
	c := &CSV{csv.NewWriter(w)}
	return c, c.flush(csvHeader)
}

// Write adds a record's row and flushes it.
func (c *CSV) Write(r *probe.Record) error {
	class := ""
	if r.Error != nil {
		class = r.Error.Class
	}
	return c.flush([]string{
		r.RunID, strconv.Itoa(r.Seq), r.Phase, r.PromptID, r.Format, r.Status, class, strconv.Itoa(r.HTTPStatus),
		cell(r.HeadersMS), cell(r.FirstByteMS), cell(r.TTFTMS), cell(r.TTFOMS), cell(r.E2EMS),
		ms(r.DurationMS), cell(r.TailMS), cell(r.ITLMS), cell(r.TPSUser),
		strconv.Itoa(r.OutputTokens), r.TokensSource, strconv.Itoa(r.ContentFrames), strconv.Itoa(r.CoalescedFrames),
		strconv.Itoa(len(r.Stalls)), strconv.Itoa(r.MidSentenceStalls()), strconv.FormatBool(r.Buffered), strconv.FormatBool(r.Complete),
		ms(r.RunOffsetMS), cell(r.IntendedStartMS),
	})
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
