package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
)

// hopsStream is recordtest.Hops's client stream beside its relay's.
func hopsStream(t *testing.T) (*Stream, []hops.Mark) {
	t.Helper()
	c, r := recordtest.Hops(t)
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: []*record.Record{c}}, []hops.File{{Name: "relay.jsonl", Records: []*record.Record{r}}})
	if err != nil {
		t.Fatal(err)
	}
	h := &rep.Streams[0]
	return &Stream{Run: 1, Phase: PhaseDone, Record: c, Hops: h}, h.Marks()
}

// TestHopsViews draws a stream beside its relay's record at 40, 80 and
// 120 columns: the hops panel, the timeline with each stall's owner, and
// the text marked where each hop held it.
func TestHopsViews(t *testing.T) {
	st := NewStyles(true, false)
	cur, marks := hopsStream(t)
	for _, w := range []int{40, 80, 120} {
		var text WrappedText
		text.SetMarks(marks)
		text.Update(cur.Record, w)
		for view, out := range map[string]string{
			"panel":    HopsPanel(cur.Hops, w, 8, &st),
			"timeline": Timeline(cur, nil, 0, w, 4, &st),
			"text":     text.Render(0, text.Lines(), &st),
		} {
			t.Run(fmt.Sprintf("%s/%d", view, w), func(t *testing.T) {
				checkWidth(t, out, w)
				golden.RequireEqual(t, out)
			})
		}
	}
}

// The owners a user must see: in the text, the path's freeze where it
// ended and the server's stalls where the server made them; on the
// timeline, the freeze both made with its split.
func TestHopsOwnersVisible(t *testing.T) {
	st := NewStyles(true, false)
	cur, marks := hopsStream(t)
	var text WrappedText
	text.SetMarks(marks)
	text.Update(cur.Record, 120)
	plain := ansi.Strip(text.Render(0, text.Lines(), &st))
	for _, want := range []string{"⏸\u00a0580\u00a0ms\u00a0path", "⏸\u00a0450\u00a0ms\u00a0path", "⏸\u00a0700\u00a0ms\u00a0upstream", "⏸\u00a0300\u00a0ms\u00a0upstream"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the text lacks %q:\n%s", want, plain)
		}
	}
	if i, j := strings.Index(plain, "450\u00a0ms"), strings.Index(plain, "700\u00a0ms"); i < 0 || j < i {
		t.Errorf("the path's share of the freeze is not marked before the server's stall inside it:\n%s", plain)
	}
	tl := ansi.Strip(Timeline(cur, nil, 0, 120, 4, &st))
	for _, want := range []string{"580 ms path", "300 ms upstream", "1.15 s: 700 ms upstream + 450 ms path"} {
		if !strings.Contains(tl, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, tl)
		}
	}
	if HopsPanel(nil, 40, 3, &st) == "" {
		t.Error("no panel without a relay's record: want a note saying so")
	}
}

// A stall in progress says who holds it, from the relay's times.
func TestLiveStallSaysWhoHoldsIt(t *testing.T) {
	st := NewStyles(true, false)
	cur, _ := hopsStream(t)
	cur.Phase, cur.ElapsedMS = PhaseStreaming, cur.Record.LastContentMS()+900
	cur.Hops.Holding = hops.OwnerPath
	if tl := ansi.Strip(Timeline(cur, nil, 0, 120, 4, &st)); !strings.Contains(tl, "⏸ 900 ms… path holds") {
		t.Errorf("the stall in progress does not say the path holds it:\n%s", tl)
	}
}
