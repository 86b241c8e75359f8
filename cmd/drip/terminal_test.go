package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/tui"
)

// hostileText is what a server or a hand-made file can put in a string: a
// pane title, the clipboard (OSC 52), a cleared screen, colour, a C1 CSI,
// a bidi override, a DCS, CR, backspace, NUL and a byte that is not UTF-8.
const hostileText = "\x1b]0;pwned-title\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[31m\u009b2J\u202eevil\u202c\x1bP1$r\x1b\\\r\b\x00\xff"

// poison appends s to every string in v (records, their frames, errors,
// workloads) and adds an s-named entry to every map, so a field added
// later is covered without naming it here.
func poison(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() && v.CanSet() && v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			poison(v.Elem(), s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				poison(v.Field(i), s)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			for i := range v.Len() {
				poison(v.Index(i), s)
			}
		}
	case reflect.String:
		v.SetString(v.String() + s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		val := reflect.New(v.Type().Elem()).Elem()
		switch {
		case val.Kind() == reflect.Slice && val.Type().Elem().Kind() == reflect.Uint8: // json.RawMessage
			val.SetBytes([]byte("1"))
		case val.Kind() == reflect.Slice:
			val.Set(reflect.MakeSlice(val.Type(), 1, 1))
		case val.Kind() == reflect.Interface:
			val.Set(reflect.ValueOf(1.0))
		case val.Kind() == reflect.String:
			val.SetString("v")
		}
		poison(val, s)
		v.SetMapIndex(reflect.ValueOf("k"+s).Convert(v.Type().Key()), val)
	}
}

// hostileFiles writes two record files from the fixture records in
// compare/testdata with s in every string: a measured stream and a failed
// one with an error. The second file's name carries s too (compare labels
// runs by file name). Beside them, badKind(a) holds a record whose frame
// is of a kind that does not exist, named with s: a file drip refuses,
// quoting the kind.
func hostileFiles(t *testing.T, s string) (a, b string) {
	t.Helper()
	dir := t.TempDir()
	steady := readRecords(t, filepath.Join("..", "..", "compare", "testdata", "steady.jsonl"))[0]
	stall := readRecords(t, filepath.Join("..", "..", "compare", "testdata", "stall.jsonl"))[0]
	measured, failed := *steady, *stall
	measured.Frames = append([]record.Frame(nil), steady.Frames...)
	failed.Frames = append([]record.Frame(nil), stall.Frames...)
	poison(reflect.ValueOf(&measured), s)
	poison(reflect.ValueOf(&failed), s)
	// An exchange header holding a control is no HTTP header, and a shard
	// that is no i/N no shard: record.Check refuses the file, quoting it
	// (TestDecodeRefusesWhatIsNoRecord).
	measured.Exchange.Header, failed.Exchange.Header = nil, nil
	for _, r := range []*record.Record{&measured, &failed} {
		if r.Workload != nil {
			r.Workload.Shard = ""
		}
	}
	measured.Phase, measured.Status, measured.Error = record.PhaseMeasure, record.StatusComplete, nil
	failed.Phase, failed.Status = record.PhaseMeasure, record.StatusFailed
	line := func(r *record.Record) string {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	badKind, _ := json.Marshal("bogus" + s)
	last := strings.Replace(line(steady), `"kind":"content"`, `"kind":`+string(badKind), 1)
	a = filepath.Join(dir, "a.jsonl")
	b = filepath.Join(dir, "b"+strings.NewReplacer("/", "", "\x00", "").Replace(s)+".jsonl")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(a, line(&measured)+line(&failed))
	write(badKindFile(a), last)
	write(b, line(&failed)+line(&measured))
	return a, b
}

// badKindFile is the file beside hostileFiles' first whose frame kind
// does not exist.
func badKindFile(a string) string { return filepath.Join(filepath.Dir(a), "bad-kind.jsonl") }

// terminalControl finds what would drive a terminal in out: any rune that
// is not graphic, a newline, a tab or a zero-width joiner.
func terminalControl(out string) (string, bool) {
	for i, r := range out {
		if r == '\n' || r == '\t' || r == '\u200d' || unicode.IsGraphic(r) {
			continue
		}
		from, to := max(i-40, 0), min(i+40, len(out))
		return fmt.Sprintf("%U at byte %d: %q", r, i, out[from:to]), true
	}
	return "", false
}

// sgr is drip's own styling on the full-screen views.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// screens renders the full-screen views over records: drip view's stream
// screen, every panel of the compare screen and a stream opened from it,
// at the sizes users have. Each returned screen is one View.
func screens(t *testing.T, a, b []*record.Record) []string {
	t.Helper()
	var out []string
	render := func(m *tui.Model, msgs ...tea.Msg) {
		for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			out = append(out, m.View().Content)
			for _, msg := range msgs {
				m.Update(msg)
				out = append(out, m.View().Content)
			}
		}
	}
	key := func(k string) tea.Msg {
		switch k {
		case "tab":
			return tea.KeyPressMsg{Code: tea.KeyTab}
		case "enter":
			return tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			return tea.KeyPressMsg{Code: tea.KeyEscape}
		}
		return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
	}
	keys := func(ks ...string) []tea.Msg {
		var msgs []tea.Msg
		for _, k := range ks {
			msgs = append(msgs, key(k))
		}
		return msgs
	}
	view := tui.New(context.Background(), tui.Config{Records: a, Color: true})
	render(view, keys("tab", "tab", "z", "b", "?", "?")...)
	view.Wait()
	c, err := compare.New([]compare.Input{{Label: "a" + a[0].Model, Records: a}, {Label: "b" + b[0].Model, Records: b}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmp := tui.NewCompare(context.Background(), c, tui.Config{Color: true})
	render(cmp, keys("2", "3", "4", "b", "1", "l", "enter", "tab", "esc", "?")...)
	cmp.Wait()
	return out
}

// ownStyling is cleanStyling, worked out once for every fuzz input.
func ownStyling(t *testing.T) map[string]bool {
	styling.once.Do(func() { styling.set = cleanStyling(t) })
	return styling.set
}

var styling struct {
	once sync.Once
	set  map[string]bool
}

// cleanStyling is the styling the screens draw over the same records
// without hostile text: drip's own.
func cleanStyling(t *testing.T) map[string]bool {
	ca, cb := hostileFiles(t, "")
	clean := map[string]bool{}
	for _, scr := range screens(t, readRecords(t, ca), readRecords(t, cb)) {
		for _, m := range sgr.FindAllString(scr, -1) {
			clean[m] = true
		}
	}
	return clean
}

// checkHostile runs every mode of drip view and drip compare over record
// files that carry s in every string and fails on anything that could
// drive the terminal but the views' own styling.
// It returns everything it saw, without the styling.
func checkHostile(t *testing.T, s string) (text, screen string) {
	a, b := hostileFiles(t, s)
	for _, args := range [][]string{
		{"view", "--no-tui", a},
		{"view", "--json", a},
		{"view", "--no-tui", filepath.Join(filepath.Dir(a), "missing"+s)},
		{"view", "--no-tui", badKindFile(a)},
		{"compare", "--no-tui", badKindFile(a), b},
		{"compare", "--no-tui", a, b},
		{"compare", "--markdown", a, b},
		{"compare", "--json", a, b},
		{"compare", "--no-tui", "--by", "host", a, b},
		{"compare", "--no-tui", a, b, "--fail-if", "ttft.p95 > +1%"},
	} {
		_, stdout, stderr := drip(t, args...)
		text += stdout + stderr
		for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if where, ok := terminalControl(out); ok {
				t.Errorf("drip %s: %s has %s", strings.Join(args[:2], " "), name, where)
			}
		}
	}
	clean := ownStyling(t)
	for i, scr := range screens(t, readRecords(t, a), readRecords(t, b)) {
		for _, m := range sgr.FindAllString(scr, -1) {
			if !clean[m] {
				t.Errorf("screen %d: styling %q that drip never draws", i, m)
				break
			}
		}
		plain := sgr.ReplaceAllString(scr, "")
		screen += plain
		if where, ok := terminalControl(plain); ok {
			t.Errorf("screen %d has %s", i, where)
		}
	}
	return text, screen
}

// A hand-made record file that sets the pane title and the clipboard (OSC
// 52) from its format, error class, model, prompt id, labels and a frame
// kind reaches no terminal in any mode of drip view or drip compare.
func TestHostileRecordFilesReachNoTerminal(t *testing.T) {
	t.Parallel()
	text, screen := checkHostile(t, hostileText)
	// The fields are shown, defused: the sequences go, the text between
	// them stays and the bidi override is spelled out.
	for _, want := range []string{`frame kind "bogus`, "evil", "<U+202E>"} {
		if !strings.Contains(text, want) || !strings.Contains(screen, "evil") {
			t.Errorf("%q is not in the output (or evil not on the screens)", want)
		}
	}
}

// FuzzHostileRecordFields puts whatever the fuzzer finds in every string
// of the records and through every mode of view and compare.
func FuzzHostileRecordFields(f *testing.F) {
	for _, s := range []string{hostileText, "\x1b]8;;http://evil\x07link\x1b]8;;\x07", "\u2066\u2069\u200f\u061c", "\x1b_apc\x1b\\\x9b31m", "\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkHostile(t, s)
	})
}
