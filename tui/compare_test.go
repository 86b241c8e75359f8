package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
)

// compareModel opens the compare screen on record files drip wrote against
// the fixture server (compare/testdata), at a terminal size.
func compareModel(t *testing.T, w, h int, files ...string) *Model {
	t.Helper()
	return compareInputs(t, w, h, readInputs(t, files...))
}

func readInputs(t *testing.T, files ...string) []compare.Input {
	t.Helper()
	return recordtest.Inputs(t, filepath.Join("..", "compare", "testdata"), files...)
}

func compareInputs(t *testing.T, w, h int, in []compare.Input) *Model {
	t.Helper()
	c, err := compare.New(in, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := NewCompare(context.Background(), c, Config{})
	t.Cleanup(m.Wait)
	m.Init()
	send(m, tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// send delivers messages and, as Bubble Tea does, asks for the view.
func send(m *Model, msgs ...tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	for _, msg := range msgs {
		_, cmd = m.Update(msg)
		m.View()
	}
	return cmd
}

// keys are key presses by name.
func keys(names ...string) []tea.Msg {
	codes := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight, "pgdown": tea.KeyPgDown}
	var out []tea.Msg
	for _, n := range names {
		switch {
		case n == "shift+tab":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
		case codes[n] != 0:
			out = append(out, tea.KeyPressMsg{Code: codes[n]})
		default:
			out = append(out, tea.KeyPressMsg{Code: rune(n[0]), Text: n})
		}
	}
	return out
}

func screenOf(m *Model) string {
	return strings.ReplaceAll(ansi.Strip(m.View().Content), "\u00a0", " ")
}

func wantOnScreen(t *testing.T, m *Model, wants ...string) {
	t.Helper()
	s := screenOf(m)
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("screen lacks %q:\n%s", w, s)
		}
	}
	checkFits(t, s, m.sh.width, m.sh.height)
}

// At 160×55 both runs stand side by side with every figure on screen at
// once (the table in two columns), the banner names the difference, and
// the help bar the keys.
func TestCompareScreenWide(t *testing.T) {
	m := compareModel(t, 160, 55, "steady.jsonl", "stall.jsonl")
	wantOnScreen(t, m,
		"drip compare · 2 runs · baseline A",
		"⚠ workload differs", "model: A steady · B mid-sentence-stall",
		"A steady.jsonl  B stall.jsonl",
		"p99              26 ms   700 ms    +674 ms   +2616% !",
		"p50             181 ms   181 ms   +0.27 ms  +0.149% ~ [-0.79 ms, +1.1 ms]",
		"streams/s         1.80    0.804     -0.993  -55.26% !",
		"! 10%+ worse · ~ within noise",
		"tab/1-5 panel", "? help", "q quit",
	)
	if s := screenOf(m); strings.Contains(s, "↑/↓ scroll") {
		t.Errorf("scroll keys offered though the whole table is on screen:\n%s", s)
	}
}

// At 100×30 the table is one column that scrolls under its headings.
func TestCompareScreenScrolls(t *testing.T) {
	m := compareModel(t, 100, 30, "steady.jsonl", "stall.jsonl")
	wantOnScreen(t, m, "1–21/81 ↓", "A steady.jsonl  B stall.jsonl", "attempted", "↑/↓ scroll")
	send(m, keys("down", "down", "down")...)
	wantOnScreen(t, m, "4–24/81 ↓", "A steady.jsonl  B stall.jsonl")
	send(m, keys("pgdown", "pgdown", "pgdown")...)
	wantOnScreen(t, m, "61–81/81", "streams/s         1.80    0.804")
	send(m, keys("g")...)
	wantOnScreen(t, m, "1–21/81 ↓")
}

// tab, shift+tab and 1-4 switch panels; each shows what it is for.
func TestComparePanels(t *testing.T) {
	m := compareModel(t, 100, 30, "steady.jsonl", "stall.jsonl")
	send(m, keys("tab")...)
	wantOnScreen(t, m, "gap ms", "A steady.jsonl n=222", "B stall.jsonl n=324", "500 ms–1 s", "ttft ms", "100–200 ms")
	send(m, keys("tab")...)
	wantOnScreen(t, m, "A steady.jsonl · 6 streams", "B stall.jsonl · 6 streams", "stall ≥250 ms", "enter open")
	send(m, keys("4")...)
	wantOnScreen(t, m, "prompt long", "prompt medium")
	send(m, keys("shift+tab")...)
	wantOnScreen(t, m, "enter opens it")
	send(m, keys("1")...)
	wantOnScreen(t, m, "attempted")
	send(m, keys("?")...)
	wantOnScreen(t, m, "shift+tab panel back", "home top")
	send(m, keys("?")...)
	wantOnScreen(t, m, "tab/1-5 panel • ↑/↓ scroll")
}

// Without the same prompt ids in every run the per-prompt panel says why
// it is empty.
func TestComparePromptsMissing(t *testing.T) {
	in := readInputs(t, "steady.jsonl", "stall.jsonl")
	for _, r := range in[1].Records {
		r.PromptID = "p0"
	}
	m := compareInputs(t, 100, 30, in)
	wantOnScreen(t, m, "prompt ids: A 3: long, medium, short · B 1: p0 (not in baseline: p0; missing: long, medium, short)")
	send(m, keys("4")...)
	wantOnScreen(t, m, "no per-prompt view")
}

// enter opens the selected stream of the selected run in the watch view;
// esc comes back to the compare screen as it was.
func TestCompareOpenStream(t *testing.T) {
	m := compareModel(t, 120, 40, "steady.jsonl", "stall.jsonl")
	send(m, keys("3", "right", "down", "down")...)
	wantOnScreen(t, m, "B stall.jsonl #3 · prompt long · complete")
	send(m, keys("enter")...)
	wantOnScreen(t, m, "drip · run 3 · done", "B stall.jsonl · esc: back to compare",
		"middle of a ⏸ 700 ms", "stalls         2 (1 mid-sentence)", "esc back")
	if m.stream.cur.Record != m.cmp.runs[1][2] {
		t.Errorf("the watch view shows another record")
	}
	// The stream screen answers its own keys, and resizes.
	send(m, keys("z")...)
	send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	wantOnScreen(t, m, "drip · run 3 · done")
	send(m, keys("esc")...)
	wantOnScreen(t, m, "3 streams", "B stall.jsonl #3 · prompt long", "enter opens it")
	checkFits(t, screenOf(m), 100, 30)
	send(m, keys("left", "enter")...)
	wantOnScreen(t, m, "A steady.jsonl · esc: back to compare")
	send(m, keys("esc")...)
	if cmd := send(m, keys("q")...); cmd == nil || cmd() != tea.Quit() {
		t.Errorf("q does not quit")
	}
}

// The screen reflows at every size, three runs included, down to 80×24
// and below, and never draws a line wider than the terminal.
func TestCompareResize(t *testing.T) {
	m := compareModel(t, 160, 45, "steady.jsonl", "stall-cut.jsonl", "stall-ctrlc.jsonl")
	wantOnScreen(t, m, "C stall-ctrlc.jsonl", "95% CI of Δ", "1 partial line(s) skipped", "measured streams: A 6 · B 5 · C 4")
	for _, size := range [][2]int{{100, 30}, {80, 24}, {60, 16}, {20, 5}, {160, 45}} {
		send(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, k := range []string{"1", "2", "3", "4", "5"} {
			send(m, keys(k)...)
			checkFits(t, screenOf(m), size[0], size[1])
		}
	}
	send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	send(m, keys("1")...)
	wantOnScreen(t, m, "A steady.jsonl  B stall-cut.jsonl   C stall-ctrlc.jsonl", "Δ%", "! worse ~ noise")
}

// The scatter panel puts each run file at its TTFT p50 and gap p99: the
// steady run below the stall line, the stalling one above it.
func TestCompareScatter(t *testing.T) {
	m := compareModel(t, 80, 24, "steady.jsonl", "stall.jsonl")
	send(m, keys("5")...)
	s := screenOf(m)
	wantOnScreen(t, m, "5 scatter", "stall 250 ms", "ttft p50", "gap p99", "? help", "q quit")
	line := strings.Index(s, "stall 250 ms")
	top, bottom := s[strings.Index(s, "a point per run"):line], s[line:strings.Index(s, " trend ")]
	if !strings.Contains(top, "B") || !strings.Contains(bottom, "A") {
		t.Errorf("want B above the stall line and A below it:\n%s", s)
	}
}

// A comparison that fills in (drip replay's, built by its own rule)
// replaces the figures in place, on the compare screen and while a stream
// is open: the panel, scroll and selection stay where the user left them.
func TestCompareUpdateFillsIn(t *testing.T) {
	in := readInputs(t, "steady.jsonl", "stall.jsonl")
	base, later := in[0], in[1]
	shown := later
	shown.Label, shown.Records = "replayed 1/5", later.Records[:1]
	feed := NewCompareFeedBy([]string{"recorded", "replayed"}, func([][]*record.Record, bool) *compare.Comparison {
		c, err := compare.New([]compare.Input{base, shown}, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	m := NewLiveCompare(context.Background(), feed, Config{})
	t.Cleanup(m.Wait)
	m.Init()
	send(m, tea.WindowSizeMsg{Width: 160, Height: 45})
	wantOnScreen(t, m, "B replayed 1/5")
	shown = later
	shown.Label = "replayed"
	send(m, liveCompareTickMsg{})
	wantOnScreen(t, m, "B replayed", "p99              26 ms   700 ms    +674 ms   +2616% !")
	if s := screenOf(m); strings.Contains(s, "replayed 1/5") {
		t.Errorf("the screen still shows the partial run:\n%s", s)
	}

	send(m, keys("3", "right", "enter")...)
	wantOnScreen(t, m, "esc: back to compare")
	shown.Label, shown.Records = "replayed again", later.Records[:1]
	send(m, liveCompareTickMsg{})
	send(m, keys("esc")...)
	wantOnScreen(t, m, "B replayed again")
}
