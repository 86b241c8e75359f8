package htmlreport

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/views"
)

// The timeline's drawing is plotW wide after a margin, in SVG units.
const (
	tlW, tlMargin = 960.0, 10.0
	tlPlotW       = tlW - 2*tlMargin
)

// stream is one stream's timeline and text.
type stream struct {
	Label  string // "#12", as the screens number streams
	Run    string // the run's letter in a comparison
	Status string
	Why    string // why it was chosen ("slowest", "longest stalls", "sample"), "" when all were
	Clocks string // the three clocks in words
	Stalls int
	Bands  []band
	Ticks  []ticks
	Bursts []mark
	Pauses []stall
	Axis   []axisTick
	End    *mark // how a failed stream ended
	Text   []segment
	Open   bool // its text unfolded, the first stream's, so the page shows one
}

// band is one of the three clocks on the timeline.
type band struct {
	Class, Name string
	X, W        float64
	Tip         string
}

// ticks are the frames of one kind as one path of vertical strokes.
type ticks struct {
	Class, Path, Tip string
}

// mark is a rectangle with its figures.
type mark struct {
	X, W float64
	Tip  string
}

// stall is a stall on the timeline, labelled "700 ms" after a pause mark
// where it happened. The mark is drawn, two bars, not the character
// U+23F8. Few fonts have it, and without one it shows as a box.
type stall struct {
	X, W, LabelX float64
	BarX         [2]float64 // the pause mark's bars
	Label, Tip   string
}

// Stall labels are bold 11 px, about this wide a character. That is
// enough to centre the mark and the figure together under the stall.
const (
	stallCharW = 6.2
	pauseW     = 10 // the two bars and the space after them
)

// newStall lays out a stall from a to b on the timeline, its label
// centred under it.
func newStall(a, b float64, label, tip string) stall {
	left := (a+b)/2 - (pauseW+stallCharW*float64(len(label)))/2
	return stall{X: a, W: max(b-a, 1), LabelX: r1(left + pauseW), BarX: [2]float64{r1(left), r1(left + 4.5)}, Label: label, Tip: tip}
}

// axisTick is a time on the axis. Anchor is its label's text-anchor, ""
// for centred. The last label of an axis that ends at the plot's edge is
// anchored at its end, or half of it would fall outside the picture.
type axisTick struct {
	X      float64
	Label  string
	Anchor string
}

// segment is a run of the text, frames of one channel or a stall marker
// where a stall ended.
type segment struct {
	Class, Text string
	Stall       string // "700 ms" for a marker, drawn after a pause mark
	Tip         string
}

// newStream lays out a record's timeline on its own time axis.
func newStream(n int, r *record.Record, why string) stream {
	end := max(r.DurationMS, lastFrame(r), 1)
	x := func(t float64) float64 { return r1(tlMargin + t/end*tlPlotW) }
	s := stream{Label: views.RunLabel(n, r), Status: r.Status, Why: why, Stalls: len(r.Stalls)}
	s.Bands, s.Clocks = clockBands(r, x)
	s.Ticks = frameTicks(r, x)
	s.Bursts = bursts(r, x)
	for _, st := range r.Stalls {
		a, b := x(st.AtMS), x(st.AtMS+st.GapMS)
		where := ""
		if st.MidSentence {
			where = ", mid-sentence"
		}
		s.Pauses = append(s.Pauses, newStall(a, b, textfmt.MS(st.GapMS),
			fmt.Sprintf("stall %s from %s, ended by frame %d%s", textfmt.MS(st.GapMS), textfmt.MS(st.AtMS), st.Frame, where)))
	}
	for _, t := range axisTicks(end) {
		s.Axis = append(s.Axis, axisTick{X: r1(x(t)), Label: textfmt.MS(t)})
	}
	if r.Status == record.StatusFailed {
		cls := "failed"
		if r.Error != nil {
			cls = sanitize.Line(r.Error.Class + " " + r.Error.Message)
		}
		s.End = &mark{X: x(r.DurationMS), Tip: "✕ " + cls}
	}
	s.Text = textSegments(r)
	return s
}

func lastFrame(r *record.Record) float64 {
	if len(r.Frames) == 0 {
		return 0
	}
	return r.Frames[len(r.Frames)-1].TMS
}

// clockBands are the three clocks. They are the wait to the first
// content (ttft), the stream from first to last content, and the tail to
// the end.
func clockBands(r *record.Record, x func(float64) float64) ([]band, string) {
	if r.TTFTMS == nil {
		return []band{{Class: "clk-wait", Name: "wait", X: x(0), W: x(r.DurationMS) - x(0),
			Tip: "no content: " + textfmt.MS(r.DurationMS) + " without a first content frame"}}, "no content frame in " + textfmt.MS(r.DurationMS)
	}
	ttft, last := *r.TTFTMS, r.LastContentMS()
	bs := []band{
		{"clk-wait", "wait", x(0), x(ttft) - x(0), "wait (ttft) " + textfmt.MS(ttft)},
		{"clk-stream", "stream", x(ttft), x(last) - x(ttft), "stream " + textfmt.MS(last-ttft) + ": first to last content"},
	}
	words := fmt.Sprintf("wait (ttft) %s · stream %s", textfmt.MS(ttft), textfmt.MS(last-ttft))
	if r.TailMS != nil {
		bs = append(bs, band{"clk-tail", "tail", x(last), x(last+*r.TailMS) - x(last), "tail " + textfmt.MS(*r.TailMS) + ": last content to the end of the stream"})
		words += " · tail " + textfmt.MS(*r.TailMS)
	}
	return bs, words
}

// frameTicks draws every frame as a stroke, one path per kind of frame.
// Content is full height by channel, and the others (role, keepalive,
// usage, end) are half height.
func frameTicks(r *record.Record, x func(float64) float64) []ticks {
	paths := map[string]*strings.Builder{}
	counts := map[string]int{}
	order := []string{"tk-text", "tk-reasoning", "tk-tool", "tk-meta"}
	for i := range r.Frames {
		f := &r.Frames[i]
		cls, y, h := "tk-meta", "32", "10"
		if f.IsContent() {
			cls, y, h = "tk-"+f.Channel.String(), "24", "20"
		}
		if paths[cls] == nil {
			paths[cls] = &strings.Builder{}
		}
		fmt.Fprintf(paths[cls], "M%s %sv%s", num(x(f.TMS)), y, h)
		counts[cls]++
	}
	var out []ticks
	for _, cls := range order {
		if p := paths[cls]; p != nil {
			what := strings.TrimPrefix(cls, "tk-")
			if what == "meta" {
				what = "other (role, keepalive, usage, end)"
			}
			out = append(out, ticks{cls, p.String(), fmt.Sprintf("%d %s frames", counts[cls], what)})
		}
	}
	return out
}

// bursts are the reads that brought more than one content frame, whose
// frames arrived together. Reads only grow, so a read's frames are
// one run of the slice.
func bursts(r *record.Record, x func(float64) float64) []mark {
	var out []mark
	for i := 0; i < len(r.Frames); {
		j, content, bytes := i, 0, 0
		for ; j < len(r.Frames) && r.Frames[j].Read == r.Frames[i].Read; j++ {
			if r.Frames[j].IsContent() {
				content++
				bytes += r.Frames[j].Bytes
			}
		}
		if content > 1 {
			a, b := x(r.Frames[i].TMS), x(r.Frames[j-1].TMS)
			out = append(out, mark{X: a - 1.5, W: max(b-a, 0) + 3,
				Tip: fmt.Sprintf("burst at %s: %d content frames (%d bytes) in one read", textfmt.MS(r.Frames[i].TMS), content, bytes)})
		}
		i = j
	}
	return out
}

// axisTicks are round times (a 1-2-5 step) from 0 to end, six at most.
func axisTicks(end float64) []float64 {
	step := 1.0
	for i := 0; end/step > 6; i++ {
		step = [3]float64{2, 5, 10}[i%3] * math.Pow(10, float64(i/3))
	}
	var out []float64
	for t := 0.0; t <= end; t += step {
		out = append(out, t)
	}
	return out
}

// textSegments are the stream's content with a marker where each stall
// ended (before the frame that ended it), runs of one channel joined.
func textSegments(r *record.Record) []segment {
	stallAt := map[int]record.Stall{}
	for _, st := range r.Stalls {
		stallAt[st.Frame] = st
	}
	var out []segment
	for i := range r.Frames {
		f := &r.Frames[i]
		if !f.IsContent() {
			continue
		}
		if st, ok := stallAt[i]; ok {
			out = append(out, segment{Stall: textfmt.MS(st.GapMS), Tip: "the stream stopped here for " + textfmt.MS(st.GapMS) + " at " + textfmt.MS(st.AtMS)})
		}
		cls := f.Channel.String()
		if n := len(out); n > 0 && out[n-1].Stall == "" && out[n-1].Class == cls {
			out[n-1].Text += sanitize.Text(f.Text)
			continue
		}
		out = append(out, segment{Class: cls, Text: sanitize.Text(f.Text)})
	}
	return out
}

// num is a coordinate with one decimal, which is enough for a screen and
// keeps the file small.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
