package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

func TestAIPerfTrace(t *testing.T) {
	openai := &record.Exchange{Header: map[string][]string{"Openai-Organization": {"org-1"}}, Removed: []string{"authorization"}}
	openai.SetResponse([]byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":38}}\n\ndata: [DONE]\n\n"))
	none := &record.Exchange{}
	none.SetResponse([]byte("data: {\"token\":{\"text\":\"a\"}}\n\n"))
	recs := []*record.Record{
		{RunOffsetMS: 1000.4, OutputTokens: 38, Exchange: openai},
		{RunOffsetMS: 1250.6, OutputTokens: 55, Server: map[string]any{"input_tokens": 21.0}},
		{RunOffsetMS: 3000, OutputTokens: 7, Exchange: none},
	}
	var buf bytes.Buffer
	st, err := AIPerf(&buf, recs)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"timestamp":0,"input_length":12,"output_length":38}
{"timestamp":250,"input_length":21,"output_length":55}
{"timestamp":2000,"output_length":7}
`
	if buf.String() != want {
		t.Errorf("trace:\n%s\nwant:\n%s", buf.String(), want)
	}
	if st.Lines != 3 || st.NoInputCount != 1 {
		t.Errorf("stats %+v, want 3 lines, 1 without input_length", st)
	}
	if strings.Contains(buf.String(), "org-1") || strings.Contains(buf.String(), "authorization") {
		t.Errorf("the trace carries request headers: %s", buf.String())
	}
}
