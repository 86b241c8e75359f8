package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/views"
)

// shell is what every screen shares. It holds the terminal's size, the
// styles of its background, and the clock. The root model owns it and
// keeps it up to date, and screens only read it.
type shell struct {
	width, height int
	styles        Styles
	color         bool // false for NO_COLOR
	now           func() time.Time
}

func (sh *shell) setStyles(dark bool) { sh.styles = newStyles(dark, sh.color) }

// sized reports the terminal's size is known and not empty.
func (sh *shell) sized() bool { return sh.width > 0 && sh.height > 0 }

// screen is one of the root model's screens. They are the stream screen,
// the run screen, the compare screen and the targets screen. A screen owns
// its state, its update and its drawing. The root model routes messages
// to the one showing and joins nothing itself.
type screen interface {
	// update handles a message routed to the screen. A tea.WindowSizeMsg
	// or tea.BackgroundColorMsg arrives after the shell took it in, and
	// the screen lays out and redraws.
	update(msg tea.Msg) tea.Cmd
	// view joins the screen's cached panels. It never draws a plot.
	view() string
	// restyle takes the shell's new styles into the screen's bubbles
	// (help, table). It runs for every screen, showing or not.
	restyle()
}

// box is a panel's size. Its h counts the title line, and 0 hides it.
type box struct{ w, h int }

// A panel is a part of a screen that draws itself into its box of w × h
// cells, title line included. Screens keep a panel's drawing in its slot
// and redraw it only when its inputs change. The layout only joins.
type panel interface {
	draw(b box) string
}

// slot is a panel placed in its box, with its last drawing.
type slot struct {
	p    panel
	b    box
	view string
}

// redraw draws the slot's panel into its box (nothing when hidden).
func (s *slot) redraw() {
	if s.b.h <= 0 || s.b.w <= 0 {
		s.view = ""
		return
	}
	s.view = textfmt.Fit(s.p.draw(s.b), s.b.w, s.b.h)
}

// grid is a screen's layout. It holds rows of slots, side by side within
// a row one column apart.
type grid [][]*slot

// compose joins the slots' drawings, hidden slots left out.
func (g grid) compose() []string {
	var rows []string
	for _, row := range g {
		var cols []string
		for _, s := range row {
			if s.b.h > 0 && s.view != "" {
				cols = append(cols, s.view)
			}
		}
		if len(cols) > 0 {
			rows = append(rows, views.JoinColumns(" ", cols...))
		}
	}
	return rows
}

// title is a panel's title line, with its name, a note, and a rule to w.
func title(st *Styles, name, note string, w int, focused bool) string {
	t := st.Views.Title.Render(" " + name + " ")
	if focused {
		t = st.Views.TitleFocused.Render(" " + name + " ")
	}
	if note = fitNote(note, w-lipgloss.Width(t)-1); note != "" {
		t += " " + note
	}
	rest := w - lipgloss.Width(t) - 1
	if rest > 0 {
		t += " " + st.Rule.Render(strings.Repeat("─", rest))
	}
	return ansi.Truncate(t, w, "")
}

// fitNote is a title's note in room cells (textfmt.FitParts). A styled
// note is only cut, as dropping parts would split their styles.
func fitNote(note string, room int) string {
	if strings.Contains(note, "\x1b") {
		return ansi.Truncate(note, max(room, 0), "…")
	}
	return textfmt.FitParts(note, room)
}

// tabs is a page bar. It shows every page with its number key, the
// current one highlighted. The current page takes its long name, and the
// others their short names when short is given.
func tabs(st *views.Styles, long, short []string, cur int) string {
	line := ""
	for p, name := range long {
		if p != cur && short != nil {
			name = short[p]
		}
		label := fmt.Sprintf(" %d %s ", p+1, name)
		if p == cur {
			line += st.TitleFocused.Render(label)
		} else {
			line += st.Title.Render(label)
		}
	}
	return line
}

// ruled ends a line with a rule to w.
func ruled(st *Styles, line string, w int) string {
	if rest := w - lipgloss.Width(line) - 1; rest > 0 {
		line += " " + st.Rule.Render(strings.Repeat("─", rest))
	}
	return line
}

func nonEmpty(parts []string) []string {
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// frameTick paces a screen's redraws. At most one tick is pending, due no
// sooner than an interval after the last draw. Each arming has its own
// generation, so a tick from before (a command is never cancelled) is
// told apart and dropped.
type frameTick struct {
	gen      int
	armed    bool
	lastDraw time.Time
}

// arm says when the next tick is due and its generation. It reports false
// while one is pending.
func (t *frameTick) arm(now time.Time, every time.Duration) (d time.Duration, gen int, ok bool) {
	if t.armed {
		return 0, 0, false
	}
	t.armed = true
	t.gen++
	return max(0, every-now.Sub(t.lastDraw)), t.gen, true
}

// fired takes in a tick of generation gen. It reports true when that is
// the pending one, which is then no longer pending.
func (t *frameTick) fired(gen int) bool {
	if gen != t.gen {
		return false
	}
	t.armed = false
	return true
}
