package htmlreport

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/recordtest"
)

func runReport(t *testing.T, in compare.Input) string {
	t.Helper()
	s := compare.Summarize(in)
	var b bytes.Buffer
	if err := WriteRun(&b, Run{Summary: &s, Records: in.Records}); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("DRIP_HTML_OUT"); p != "" {
		os.WriteFile(p, b.Bytes(), 0o644)
	}
	return b.String()
}

func TestRunReportHasItsParts(t *testing.T) {
	in := recordtest.Inputs(t, "../../compare/testdata", "stall.jsonl")[0]
	out := runReport(t, in)
	for _, want := range []string{"Content-Security-Policy", "⏸ ", `id="clocks"`, `class="hist"`, `class="heatmap"`, `class="scatter"`, `class="timeline"`} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
