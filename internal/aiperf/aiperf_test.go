package aiperf

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

func TestAIPerfTrace(t *testing.T) {
	t.Parallel()
	openai := &record.Exchange{Header: map[string][]string{"Openai-Organization": {"org-1"}}, Removed: []string{"authorization"}}
	openai.SetResponse([]byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":38}}\n\ndata: [DONE]\n\n"))
	none := &record.Exchange{}
	none.SetResponse([]byte("data: {\"token\":{\"text\":\"a\"}}\n\n"))
	ttft := 180.0
	recs := []*record.Record{
		{RunOffsetMS: 900, Status: record.StatusFailed}, // no content: left out, yet the first request
		{RunOffsetMS: 1000.4, OutputTokens: 38, TTFTMS: &ttft, Exchange: openai},
		{RunOffsetMS: 1250.6, OutputTokens: 55, TTFTMS: &ttft, Server: map[string]any{"input_tokens": 21.0}},
		{RunOffsetMS: 3000, OutputTokens: 7, TTFTMS: &ttft, Exchange: none},
	}
	var buf bytes.Buffer
	st, err := WriteTrace(&buf, recs)
	if err != nil {
		t.Fatal(err)
	}
	// The first line is at 0 (AIPerf's schedule start), though a request
	// left out came before it.
	want := `{"timestamp":0,"input_length":12,"output_length":38}
{"timestamp":250,"input_length":21,"output_length":55}
`
	if buf.String() != want {
		t.Errorf("trace:\n%s\nwant:\n%s", buf.String(), want)
	}
	if st.Lines != 2 || st.NoInputCount != 1 || st.NoOutput != 1 {
		t.Errorf("stats %+v, want 2 lines, 1 stream left out for want of input_length, 1 for want of output", st)
	}
	if strings.Contains(buf.String(), "org-1") || strings.Contains(buf.String(), "authorization") {
		t.Errorf("the trace carries request headers: %s", buf.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var fields map[string]any
		if err := json.Unmarshal([]byte(line), &fields); err != nil {
			t.Fatal(err)
		}
		// AIPerf's MooncakeTrace wants exactly one input: input_length here.
		if len(fields) != 3 || fields["timestamp"] == nil || fields["input_length"] == nil || fields["output_length"] == nil {
			t.Errorf("a trace line is not timestamp, input_length, output_length: %s", line)
		}
	}
}

// The notes count what the trace left out, by cause, and name the file.
func TestTraceNotes(t *testing.T) {
	t.Parallel()
	var w strings.Builder
	TraceStats{Lines: 3, NoInputCount: 2, NoOutput: 1}.writeNotes(&w, "trace\x1b[2J.jsonl")
	for _, want := range []string{"drip export: 3 requests written to trace", "left out 1 stream that failed before any content", "left out 2 streams whose server reported no prompt tokens"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, w.String())
		}
	}
	if strings.Contains(w.String(), "\x1b") {
		t.Errorf("the file name is printed as given: %q", w.String())
	}
	w.Reset()
	TraceStats{Lines: 3}.writeNotes(&w, "")
	if w.Len() != 0 {
		t.Errorf("a whole trace to stdout says %q, want nothing", w.String())
	}
}
