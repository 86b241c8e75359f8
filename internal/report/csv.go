package report

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// csvLayout is the order of the CSV's first columns. A name the registry
// holds (stats.Metric.JSON) is that metric's figure; the registry's other
// CSV metrics follow at the end (csvColumns), so older readers' columns
// stay put when a metric is added.
var csvLayout = []string{
	"run_id", "seq", "phase", "prompt_id", "format", "status", "error_class", "http_status",
	"headers_ms", "first_byte_ms", "ttft_ms", "ttfo_ms", "e2e_ms", "duration_ms", "tail_ms",
	"itl_ms", "tps_user", "output_tokens", "tokens_source", "content_frames", "coalesced_frames",
	"stalls", "mid_sentence_stalls", "buffered", "complete",
	"run_offset_ms", "intended_start_ms", // added last, so older readers' columns stay put
	// Each stream's gap distribution, reads and rate after the first
	// content, which are enough to draw the TTFT × gap p99 scatter from
	// the CSV.
	"gap_p50_ms", "gap_p95_ms", "gap_p99_ms", "gap_max_ms", "reads", "post_first_content_tps",
	// Where and when a stream ran, for joining with server logs.
	"model", "target", "start_time", "input_tokens",
}

// recordCells are the columns that are not registry metrics.
var recordCells = map[string]func(*record.Record) string{
	"run_id":    func(r *record.Record) string { return r.RunID },
	"seq":       func(r *record.Record) string { return strconv.Itoa(r.Seq) },
	"phase":     func(r *record.Record) string { return r.Phase },
	"prompt_id": func(r *record.Record) string { return r.PromptID },
	"format":    func(r *record.Record) string { return r.Format },
	"status":    func(r *record.Record) string { return r.Status },
	"error_class": func(r *record.Record) string {
		if r.Error == nil {
			return ""
		}
		return r.Error.Class
	},
	"http_status":            func(r *record.Record) string { return strconv.Itoa(r.HTTPStatus) },
	"tokens_source":          func(r *record.Record) string { return r.TokensSource },
	"content_frames":         func(r *record.Record) string { return strconv.Itoa(r.ContentFrames) },
	"coalesced_frames":       func(r *record.Record) string { return strconv.Itoa(r.CoalescedFrames) },
	"stalls":                 func(r *record.Record) string { return strconv.Itoa(len(r.Stalls)) },
	"mid_sentence_stalls":    func(r *record.Record) string { return strconv.Itoa(r.MidSentenceStalls()) },
	"buffered":               func(r *record.Record) string { return strconv.FormatBool(r.Buffered) },
	"complete":               func(r *record.Record) string { return strconv.FormatBool(r.Complete) },
	"run_offset_ms":          func(r *record.Record) string { return ms(r.RunOffsetMS) },
	"intended_start_ms":      func(r *record.Record) string { return cell(r.IntendedStartMS) },
	"gap_p50_ms":             gapCell(50),
	"gap_p95_ms":             gapCell(95),
	"gap_p99_ms":             gapCell(99),
	"gap_max_ms":             gapCell(100),
	"reads":                  func(r *record.Record) string { return strconv.Itoa(r.Reads) },
	"post_first_content_tps": func(r *record.Record) string { return cell(PostFirstContentTPS(r)) },
	// Control sequences are stripped, because a CSV ends up printed in a
	// terminal.
	"model":  func(r *record.Record) string { return sanitize.Line(r.Model) },
	"target": func(r *record.Record) string { return sanitize.Line(r.Target) },
	"start_time": func(r *record.Record) string { // RFC 3339, UTC
		if r.StartUnixNS == 0 {
			return ""
		}
		return time.Unix(0, r.StartUnixNS).UTC().Format(time.RFC3339Nano)
	},
}

// csvColumn is a column's name and how a stream fills its cell.
type csvColumn struct {
	name string
	cell func(*record.Record) string
}

// csvColumns are csvLayout's columns, then every other registry metric
// with a CSV column, as the registry is when a CSV starts.
func csvColumns() []csvColumn {
	var cols []csvColumn
	laid := map[string]bool{}
	for _, name := range csvLayout {
		laid[name] = true
		if f := recordCells[name]; f != nil {
			cols = append(cols, csvColumn{name, f})
			continue
		}
		cols = append(cols, csvColumn{name, metricCell(name)})
	}
	for _, m := range stats.Registry {
		if m.Out&stats.InCSV != 0 && !laid[m.JSON] {
			cols = append(cols, csvColumn{m.JSON, metricCell(m.JSON)})
		}
	}
	return cols
}

// metricCell is a registry metric's figure for a stream. Times and rates
// have three decimals, counts are whole, and an undefined figure is empty.
func metricCell(name string) func(*record.Record) string {
	i := slices.IndexFunc(stats.Registry, func(m stats.Metric) bool { return m.JSON == name })
	if i < 0 {
		panic("report: CSV column " + name + " is neither a record cell nor a metric")
	}
	m := stats.Registry[i]
	return func(r *record.Record) string {
		v := m.Value(r)
		if v != nil && m.Unit == "" {
			return strconv.FormatFloat(*v, 'f', -1, 64)
		}
		return cell(v)
	}
}

// CSV writes one row per stream. Undefined figures are empty cells.
type CSV struct {
	w    *csv.Writer
	cols []csvColumn
}

// NewCSV writes the header row.
func NewCSV(w io.Writer) (*CSV, error) {
	c := &CSV{csv.NewWriter(w), csvColumns()}
	head := make([]string, len(c.cols))
	for i, col := range c.cols {
		head[i] = col.name
	}
	return c, c.flush(head)
}

// Write adds a record's row and flushes it.
func (c *CSV) Write(r *record.Record) error {
	row := make([]string, len(c.cols))
	for i, col := range c.cols {
		row[i] = col.cell(r)
	}
	return c.flush(row)
}

// gapCell is a stream's gap percentile p (100 for the max), empty without
// gaps.
func gapCell(p float64) func(*record.Record) string {
	return func(r *record.Record) string {
		gaps := slices.Clone(r.Gaps())
		if len(gaps) == 0 {
			return ""
		}
		slices.Sort(gaps)
		return ms(stats.Percentile(gaps, p))
	}
}

// PostFirstContentTPS is a stream's output tokens after the first content
// frame over the time from it to the last one, in tokens per second.
// Unlike tps_user it is given for buffered and incomplete streams too, so
// a burst shows as a very high rate rather than a blank. Nil with fewer
// than two tokens or no time between first and last content.
func PostFirstContentTPS(r *record.Record) *float64 {
	if r.TTFTMS == nil || r.OutputTokens < 2 {
		return nil
	}
	span := r.LastContentMS() - *r.TTFTMS
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

// cell is an optional figure, empty when undefined.
func cell(v *float64) string {
	if v == nil {
		return ""
	}
	return ms(*v)
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
