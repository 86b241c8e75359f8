package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// TargetTitle is a target pane's title line. It holds the target's letter
// and name, the run, and where its current stream is. The first byte shows
// as soon as it is known, a stall in progress grows, and a buffered stream
// shows its end-to-end rate.
//
// A line too wide for width loses whole parts, never a stub ("· f…").
// First byte goes first, then the name. A URL is cut in its middle as
// every header cuts one, by ElideURL down to urlFloor, which keeps the host
// and the path's end. Next goes the end of an error's message, which the
// pane's text shows whole. Then go the status's last parts (a rate, a frame
// count), then the stalls (their mid-sentence count first), then the TTFT.
// The name goes last.
func TargetTitle(letter, name string, s *Stream, width int, st *Styles) string {
	status, stStyle := statusText(s, st)
	full := sanitize.Line(name)
	name = full
	head := func() string {
		return st.TitleFocused.Render(" "+letter+" ") + " " + st.Value.Render(name) + st.Dim.Render(fmt.Sprintf(" · run %d · ", s.Run))
	}
	r := s.Record
	var firstByte, ttft, stalls string
	if s.Phase == PhaseStreaming || s.Phase == PhaseDone {
		if r.FirstByteMS != nil {
			firstByte = "first byte " + textfmt.MS(*r.FirstByteMS)
		}
		if r.TTFTMS != nil {
			ttft = "ttft " + textfmt.MS(*r.TTFTMS)
		}
		if n := len(r.Stalls); n > 0 {
			stalls = fmt.Sprintf("%d stalls (%d mid-sentence)", n, r.MidSentenceStalls())
		}
	}
	build := func() string {
		line := head() + stStyle.Render(status)
		for _, e := range []string{firstByte, ttft, stalls} {
			if e != "" {
				line += st.Dim.Render(" · ") + st.Label.Render(e)
			}
		}
		return line
	}
	// A URL gives way as every header's does, down to urlFloor, before
	// the status loses more. Where nothing else is left to cut, it gives
	// way to the room there is.
	elide := func(floor int) func() bool {
		return func() bool { return elideName(&name, full, width-(textfmt.Width(build())-textfmt.Width(name)), floor) }
	}
	cuts := []func() bool{
		func() bool { return drop(&firstByte) },
		elide(urlMin(full, urlFloor)),
		func() bool { return cutMessage(&status, textfmt.Width(build())-width) },
		func() bool { return textfmt.DropLastPart(&status) },
		func() bool { // "2 stalls (1 mid-sentence)", then "2 stalls"
			short, _, ok := strings.Cut(stalls, " (")
			stalls = short
			return ok || drop(&stalls)
		},
		func() bool { return drop(&ttft) },
		elide(10),
	}
	line := build()
	for i := 0; i < len(cuts) && textfmt.Width(line) > width; {
		if !cuts[i]() {
			i++
		}
		line = build()
	}
	return textfmt.Fit(line, width, 1)
}

// elideName cuts a pane's name (full) to room, no less than floor. A URL
// is cut as every header cuts one, by ElideURL, which keeps the host and the
// path's end. Another name is cut at its end. It returns false when that
// did not change the name.
func elideName(name *string, full string, room, floor int) bool {
	room = max(room, min(floor, textfmt.Width(full)))
	short := ElideURL(full, room)
	if !strings.Contains(full, "://") {
		short = ansi.Truncate(full, room, "…")
	}
	cut := short != *name
	*name = short
	return cut
}

// cutMessage shortens the message after a status's " — " by over cells
// (with "…"), or leaves it out when too little of it would stay. It
// returns false when there is no message to cut.
func cutMessage(status *string, over int) bool {
	i := strings.Index(*status, " — ")
	if i < 0 || over <= 0 {
		return false
	}
	head, msg := (*status)[:i], (*status)[i+len(" — "):]
	if keep := textfmt.Width(msg) - over - 1; keep >= 8 {
		*status = head + " — " + textfmt.CutWords(msg, keep+1)
	} else {
		*status = head
	}
	return false // cut as far as it goes, so the next cut comes next
}

// drop empties s. It returns false when s already was empty.
func drop(s *string) bool {
	had := *s != ""
	*s = ""
	return had
}

// targetRow is a figure of the clocks table, by its compare row key.
type targetRow struct{ key, label string }

var targetRows = []targetRow{
	{"ttft.p50", "ttft p50"}, {"ttft.p95", "ttft p95"}, {"gap.p50", "gap p50"}, {"gap.p99", "gap p99"},
	{"e2e.p50", "e2e p50"}, {"tail.p50", "tail p50"}, {"stalls", "stalls"}, {"stalls.mid_sentence", "mid-sentence"},
	{"tps_user.p50", "tok/s/user"},
}

// TargetClocksRows is how many lines TargetClocks wants, a heading, a row
// per figure and the note.
func TargetClocksRows() int { return len(targetRows) + 2 }

// TargetClocks is the watch screen's clocks table. It has a column per target
// with its figure over the target's finished runs, and for every target
// after the first its delta against the first, carrying the bootstrap
// interval compare computes once both have three or more runs (~ marks a
// delta within noise, ! one worse by 10 % or more). c is nil until every
// target has finished a run. When the columns would not fit the width
// (three targets or more at 80 columns) the deltas lose their interval,
// then their ms, then their % — the marks stay — and the note says so.
func TargetClocks(c *compare.Comparison, names []string, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if c == nil {
		return Note("the figures and their deltas fill in as each target finishes a run", width, height, st)
	}
	rows := map[string]compare.Row{}
	for _, sec := range c.Sections {
		for _, r := range sec.Rows {
			rows[r.Key] = r
		}
	}
	var t targetTable
	for d := deltaFull; d <= deltaNone; d++ {
		if t = newTargetTable(c, rows, d); t.width() <= width {
			break
		}
	}
	lines := t.render(st)
	note := t.note(c.Noise.Confidence)
	// Rows that do not fit are counted, never dropped unsaid.
	if len(lines)+1 > height {
		keep := max(1, height-1)
		cut := len(lines) - keep
		lines = lines[:keep]
		note = fmt.Sprintf("… %s: 2 shows every figure · ", stats.Count(cut, "more row")) + note
	}
	lines = append(lines, st.Dim.Render(textfmt.FitParts(note, width)))
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// deltaDetail is how much of a delta a clocks cell shows.
type deltaDetail uint8

const (
	deltaFull deltaDetail = iota // Δ, Δ% and the interval
	deltaNoCI                    // Δ and Δ%
	deltaPct                     // Δ%
	deltaNone                    // the value and the marks
)

// targetTable is the clocks table's cells, the heading and then a row per
// figure. Each cell is in parts (the value, Δ, Δ%, the interval, the marks)
// so that a column's deltas line up. withCI reports that an interval was
// known, shown or not.
type targetTable struct {
	cells  [][]cellParts
	parts  [][partCount]int // per column, each part's width
	widths []int
	detail deltaDetail
	withCI bool
}

// A cell's parts. A heading or a label is a value alone.
const (
	partValue = iota
	partAbs
	partPct
	partCI
	partMark
	partCount
)

type cellParts [partCount]string

func newTargetTable(c *compare.Comparison, rows map[string]compare.Row, d deltaDetail) targetTable {
	n := len(c.Runs)
	t := targetTable{cells: make([][]cellParts, len(targetRows)+1), parts: make([][partCount]int, n+1), widths: make([]int, n+1), detail: d}
	t.cells[0] = []cellParts{{}}
	for i := range n {
		t.cells[0] = append(t.cells[0], cellParts{compare.Letter(i) + " " + stats.Count(len(c.Runs[i].Records), "run")})
	}
	for j, tr := range targetRows {
		r := rows[tr.key]
		line := []cellParts{{tr.label}}
		for i := range n {
			line = append(line, t.cell(r, i))
		}
		t.cells[j+1] = line
	}
	for j, line := range t.cells {
		for i, c := range line {
			if j == 0 {
				continue // the heading spans the parts
			}
			for p, part := range c {
				t.parts[i][p] = max(t.parts[i][p], ansi.StringWidth(part))
			}
		}
	}
	for i := range t.widths {
		w := -1
		for _, pw := range t.parts[i] {
			if pw > 0 {
				w += pw + 1
			}
		}
		// A heading wider than its column's parts ("B 3 runs" over "—"
		// cells) widens the value part, so the figures still line up
		// under it rather than squeezing to "— —  —".
		if head := ansi.StringWidth(t.cells[0][i][partValue]); head > w && w >= 0 {
			t.parts[i][partValue] += head - w
			w = head
		}
		t.widths[i] = w
	}
	return t
}

// cell is target i's figure of row r, with its delta for every target
// after the first.
func (t *targetTable) cell(r compare.Row, i int) cellParts {
	var c cellParts
	c[partValue] = "—"
	if i < len(r.Values) {
		c[partValue] = compare.FormatValue(r, r.Values[i])
	}
	if i == 0 || i >= len(r.Deltas) || r.Deltas[i] == nil {
		return c
	}
	d := r.Deltas[i]
	if t.detail <= deltaNoCI {
		c[partAbs] = compare.FormatDeltaAbs(r, d)
	}
	if t.detail <= deltaPct {
		c[partPct] = compare.FormatDeltaPct(d)
	}
	if d.CI != nil {
		t.withCI = true
		if t.detail == deltaFull {
			c[partCI] = fmt.Sprintf("[%s,%s]", signedIn(r, d.CI.Lo), signedIn(r, d.CI.Hi))
		}
	}
	c[partMark] = compare.Marks(d)
	return c
}

// width is the cells the table takes, with its columns two apart.
func (t *targetTable) width() int {
	w := 0
	for _, cw := range t.widths {
		w += cw + 2
	}
	return w - 2
}

func (t *targetTable) render(st *Styles) []string {
	lines := make([]string, 0, len(t.cells))
	for j, line := range t.cells {
		var b strings.Builder
		for i, c := range line {
			style := st.Value
			switch {
			case j == 0 || i == 0:
				style = st.Label
			case c[partValue] == "—" && c[partAbs]+c[partPct] == "":
				style = st.Undefined
			case strings.Contains(c[partMark], "!"):
				style = st.Failed
			}
			text := c[partValue]
			if j > 0 && i > 0 {
				text = t.join(i, c)
			}
			pad := t.widths[i] - ansi.StringWidth(text)
			if i < len(line)-1 { // no gap after the last column, which width() does not count
				pad += 2
			}
			b.WriteString(style.Render(text) + strings.Repeat(" ", pad))
		}
		lines = append(lines, b.String())
	}
	return lines
}

// join lays a cell's parts out in column i's part widths. The figures are
// right-aligned, and the interval and the marks come after them.
func (t *targetTable) join(i int, c cellParts) string {
	var parts []string
	for p, pw := range t.parts[i] {
		if pw == 0 {
			continue
		}
		pad := strings.Repeat(" ", pw-ansi.StringWidth(c[p]))
		if p <= partPct {
			parts = append(parts, pad+c[p])
		} else {
			parts = append(parts, c[p]+pad)
		}
	}
	return strings.TrimRight(strings.Join(parts, " "), " ")
}

// note says what the cells hold, and what a wider terminal would add.
func (t *targetTable) note(confidence float64) string {
	// A row's figure is of all the target's streams (gaps pooled), as drip
	// compare's is. A "p50 of each target's runs" would read as if gap p99
	// were the median of the runs' own p99s.
	note := "over all runs of a target · Δ vs A"
	switch {
	case t.withCI && t.detail == deltaFull:
		note += fmt.Sprintf(" · [%.0f%% interval] · ~ noise · ! worse", confidence*100)
	case t.withCI:
		note += " · ~ noise · ! worse"
	default:
		note += fmt.Sprintf(" · intervals once each target has %d runs", stats.MinNoiseStreams)
	}
	switch t.detail {
	case deltaNoCI:
		if t.withCI {
			note += " · wider: intervals"
		}
	case deltaPct:
		note += " · wider: Δ ms"
	case deltaNone:
		note += " · wider: Δ"
	}
	return note
}
