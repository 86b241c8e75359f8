package hops_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// A relay file named with Markdown in it ("a|b.jsonl") stays one cell of
// its row: every row of the table has as many cells as the header.
func TestMarkdownEscapesARelayFilesName(t *testing.T) {
	t.Parallel()
	rf := relayFrames()
	client := stream(t, "run1", 0, false, shifted(rf, func(int) float64 { return 0 }))
	files := []hops.File{{Name: "a|b_*x*.jsonl"}, {Name: "c.jsonl"}}
	for i := range files {
		files[i].Records = []*record.Record{withID(stream(t, "r", 0, true, rf), "run1-0")}
	}
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: []*record.Record{client}}, files)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	unescaped := regexp.MustCompile(`(^|[^\\])\|`)
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 4 {
		t.Fatalf("%d table rows, want a header, a rule and 2 streams:\n%s", len(rows), b.String())
	}
	want := len(unescaped.FindAllString(rows[0], -1))
	for _, r := range rows[2:] {
		if got := len(unescaped.FindAllString(r, -1)); got != want {
			t.Errorf("a row with %d cell bounds, the header has %d: %s", got, want, r)
		}
	}
	if !strings.Contains(b.String(), `a\|b\_\*x\*.jsonl`) {
		t.Errorf("the file's name is not escaped:\n%s", b.String())
	}
}
