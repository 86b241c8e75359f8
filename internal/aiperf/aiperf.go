// Package aiperf writes a drip recording as a trace AIPerf replays (drip export aiperf).
package aiperf

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// MooncakeLine is one request of a mooncake-style trace, as AIPerf's
// mooncake_trace dataset reads it.
type MooncakeLine struct {
	Timestamp    int64 `json:"timestamp"`    // ms from the first line's request
	InputLength  int   `json:"input_length"` // prompt tokens, as the usage said
	OutputLength int   `json:"output_length"`
}

// TraceStats say what an export could not fill in.
type TraceStats struct {
	Lines        int
	NoInputCount int // streams left out because the server reported no prompt tokens
	NoOutput     int // streams left out because no content came, so no output length is known
}

// promptTokens finds a usage report's prompt-token count in a response body,
// in any format drip reads (the last report wins).
var promptTokens = regexp.MustCompile(`"(?:prompt_tokens|input_tokens|promptTokenCount|prompt_eval_count|inputTokens|inputTokenCount)"\s*:\s*([0-9]+)`)

// WriteTrace writes the streams of a recording (drip record) as a mooncake
// trace. It writes one line per request, in the order they started, with
// timestamps from the first line's. A stream that failed before any content has no output length
// (0 would ask AIPerf for an empty answer), and one whose server reported
// no prompt tokens no input length (AIPerf refuses a line without one, or
// a text_input or messages, which would carry the prompt). Each is left
// out and counted. Only timing and token counts go out, never a header, a
// body or a credential.
func WriteTrace(w io.Writer, streams []*record.Record) (TraceStats, error) {
	var st TraceStats
	type line struct {
		at float64
		MooncakeLine
	}
	var lines []line
	for _, r := range streams {
		if r.TTFTMS == nil {
			st.NoOutput++
			continue
		}
		in := inputLength(r)
		if in == nil {
			st.NoInputCount++
			continue
		}
		lines = append(lines, line{r.RunOffsetMS, MooncakeLine{InputLength: *in, OutputLength: r.OutputTokens}})
	}
	// AIPerf sends a line timestamp ms after its schedule starts. The
	// first line written is 0, not the first recorded request, which may
	// be left out.
	first := math.Inf(1)
	for _, l := range lines {
		first = math.Min(first, l.at)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, l := range lines {
		l.Timestamp = int64(math.Round(l.at - first))
		if err := enc.Encode(l.MooncakeLine); err != nil {
			return st, err
		}
		st.Lines++
	}
	return st, bw.Flush()
}

func inputLength(r *record.Record) *int {
	if v, ok := r.Server["input_tokens"].(float64); ok {
		n := int(v)
		return &n
	}
	if r.Exchange == nil {
		return nil
	}
	m := promptTokens.FindAllSubmatch(r.Exchange.ResponseBody(), -1)
	if len(m) == 0 {
		return nil
	}
	n, err := strconv.Atoi(string(m[len(m)-1][1]))
	if err != nil {
		return nil
	}
	return &n
}

// writeNotes says on w (stderr) where the trace went (out, "" for stdout)
// and what it left out.
func (st TraceStats) writeNotes(w io.Writer, out string) {
	if out != "" && st.Lines > 0 {
		fmt.Fprintf(w, "drip export: %s written to %s\n", stats.Count(st.Lines, "request"), sanitize.Line(out))
	}
	if st.NoOutput > 0 {
		fmt.Fprintf(w, "drip export: left out %s that failed before any content (no output_length is known)\n", stats.Count(st.NoOutput, "stream"))
	}
	if st.NoInputCount > 0 {
		fmt.Fprintf(w, "drip export: left out %s whose server reported no prompt tokens (AIPerf needs an input_length; OpenAI reports usage in a stream only with stream_options.include_usage)\n", stats.Count(st.NoInputCount, "stream"))
	}
}
