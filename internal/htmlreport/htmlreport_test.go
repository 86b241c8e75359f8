package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
)

const testdata = "../../compare/testdata"

func runReport(t *testing.T, in compare.Input) string {
	t.Helper()
	s := compare.Summarize(in)
	var b bytes.Buffer
	if err := WriteRun(&b, Run{Summary: &s, Records: in.Records}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRunReportHasItsParts(t *testing.T) {
	t.Parallel()
	in := recordtest.Inputs(t, testdata, "stall.jsonl")[0]
	out := runReport(t, in)
	for _, want := range []string{`id="measured"`, `id="accounting"`, `id="hints"`, `id="clocks"`, `class="hist"`, `class="heatmap"`, `class="scatter"`,
		"Timelines of every measured stream (6).", `<rect class="pause" x="413.4" y="53.5" width="2.5" height="9"/><rect class="pause" x="417.9" y="53.5" width="2.5" height="9"/><text x="423.4" y="62">700 ms</text>`,
		`<mark class="st" title="the stream stopped here for 700 ms at 782 ms"><i class="pause" aria-label="stall"></i>700 ms</mark>`, "transport (6)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.ContainsRune(out, '\u23f8') {
		t.Error("the page has U+23F8, a box where no font has it: the pause mark is drawn")
	}
	if n := strings.Count(out, `<section class="stream"`); n != 6 {
		t.Errorf("%d stream sections, want 6", n)
	}
}

// TestPolicyAllowsOnlyTheReportsScript holds the CSP to the page: the one
// script's and style's hashes are the ones it names, and it forbids every
// load.
func TestPolicyAllowsOnlyTheReportsScript(t *testing.T) {
	t.Parallel()
	out := runReport(t, recordtest.Inputs(t, testdata, "steady.jsonl")[0])
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	script := regexp.MustCompile(`(?s)<script>(.*)</script>`).FindStringSubmatch(out)
	style := regexp.MustCompile(`(?s)<style>(.*)</style>`).FindStringSubmatch(out)
	policy := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(out)
	if script == nil || style == nil || policy == nil {
		t.Fatal("the page lacks its script, style or policy")
	}
	for _, want := range []string{"default-src 'none'", "script-src " + hash(script[1]) + ";", "style-src " + hash(style[1]) + ";", "connect-src 'none'", "img-src 'none'"} {
		if !strings.Contains(policy[1], strings.ReplaceAll(want, "'", "&#39;")) {
			t.Errorf("policy %s lacks %s", policy[1], want)
		}
	}
}

// TestHostileStringsStayText puts markup in every string a record gives
// the page: none of it reaches the page as markup.
func TestHostileStringsStayText(t *testing.T) {
	t.Parallel()
	const evil = "\x1b]0;x\x07</script><script>alert(1)</script><img src=x onerror=alert(2)><a href=\"javascript:alert(3)\">"
	in := recordtest.Inputs(t, testdata, "stall.jsonl")[0]
	for _, r := range in.Records {
		r.Target, r.Model, r.PromptID, r.Status = evil, evil, evil, record.StatusFailed
		r.Error = &record.Error{Class: evil, Message: evil}
		for i := range r.Frames {
			r.Frames[i].Text = evil
		}
	}
	in.Label = evil
	runs := []string{runReport(t, in)}
	c, err := compare.New([]compare.Input{in, recordtest.Inputs(t, testdata, "steady.jsonl")[0]}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteComparison(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, out := range append(runs, b.String()) {
		if n := strings.Count(out, "<script"); n != 1 {
			t.Errorf("%d <script in the page, want the report's one", n)
		}
		for _, bad := range []string{"<img", "<a ", "\x1b", "\x07"} {
			if strings.Contains(out, bad) {
				t.Errorf("the page holds %q from a record", bad)
			}
		}
		if !strings.Contains(out, "&lt;img src=x onerror=alert(2)&gt;") {
			t.Error("the hostile string is not shown as text")
		}
	}
}

// TestManyStreamsTimelinesAreAStatedSelection: past maxTimelines, the
// slowest, the longest stalls and a sample, and the page says so.
func TestManyStreamsTimelinesAreAStatedSelection(t *testing.T) {
	t.Parallel()
	var recs []*record.Record
	for i := range 100 {
		r := &record.Record{Seq: i, DurationMS: float64(1000 + i)}
		if i%10 == 0 {
			r.Stalls = []record.Stall{{GapMS: float64(300 + i)}}
		}
		recs = append(recs, r)
	}
	picked, said := selectStreams(recs, maxTimelines)
	if len(picked) != maxTimelines {
		t.Fatalf("%d timelines, want %d", len(picked), maxTimelines)
	}
	why := map[string][]int{}
	for _, c := range picked {
		why[c.why] = append(why[c.why], c.r.Seq)
	}
	// The 10 slowest are 90–99; of the stalled, 90 is taken already, so the
	// longest stalls are 80, 70, … 0; the sample is the other 10.
	if got := why["slowest"]; len(got) != 10 || got[0] != 99 || got[9] != 90 {
		t.Errorf("slowest %v", got)
	}
	if got := why["longest stalls"]; len(got) != 9 || got[0] != 80 || got[8] != 0 {
		t.Errorf("longest stalls %v", got)
	}
	if got := why["sample"]; len(got) != 11 {
		t.Errorf("sample %v", got)
	}
	if want := "Timelines of 30 of 100 measured streams: the 10 slowest (by duration), the 9 with the longest stalls (of 10 with a stall), and 11 sampled evenly in sequence."; !strings.HasPrefix(said, want) {
		t.Errorf("said %q\nwant %q", said, want)
	}
}

// The heatmap's rows are the streams in sequence, though the records
// come in the order the streams ended (#6 before #5 in the fixture).
func TestHeatmapRowsInSequence(t *testing.T) {
	t.Parallel()
	recs := measured(recordtest.Inputs(t, testdata, "stall.jsonl")[0].Records)
	var seqs []int
	for _, r := range recs {
		seqs = append(seqs, r.Seq)
	}
	if slices.IsSorted(seqs) {
		t.Fatalf("the fixture's records are in sequence (%v): nothing to check", seqs)
	}
	var labels []string
	for _, l := range newHeatmap(recs, 250).Labels {
		labels = append(labels, l.Label)
	}
	if got := strings.Join(labels, " "); got != "#1 #2 #3 #4 #5 #6" {
		t.Errorf("heatmap rows %s, want #1 … #6 in order", got)
	}
}

// The scatter's x axis ends at the picture's right edge: its last label
// is anchored at its end, so none of it is clipped.
func TestScatterLastLabelInside(t *testing.T) {
	t.Parallel()
	out := runReport(t, recordtest.Inputs(t, testdata, "stall.jsonl")[0])
	svg := regexp.MustCompile(`(?s)<svg class="scatter".*?</svg>`).FindString(out)
	labels := regexp.MustCompile(`<text x="([0-9.]+)" y="348" text-anchor="(\w+)">([^<]+)</text>`).FindAllStringSubmatch(svg, -1)
	if len(labels) != 6 {
		t.Fatalf("%d x-axis labels, want 6", len(labels))
	}
	if last := labels[5]; last[2] != "end" || last[3] != "1.5 s" {
		t.Errorf("last x label %q anchored %s at %s: want \"1.5 s\" anchored at its end", last[3], last[2], last[1])
	}
	if first := labels[0]; first[2] != "middle" {
		t.Errorf("first x label anchored %s, want middle", first[2])
	}
}
