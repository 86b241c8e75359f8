package integration

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/testenv"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// These tests open drip's --html reports (docs/html-report.md) in a real
// headless Chromium and read the DOM after the report's script ran.

func chromium(t testing.TB) string {
	return testenv.LookPath(t, "chromium", "apt-get install -y chromium")
}

// browse runs headless Chromium on a file with its own profile; extra
// says what to produce (--dump-dom, --screenshot=…).
func browse(t testing.TB, bin, file string, extra ...string) []byte {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir()}, extra...)
	cmd := exec.Command(bin, append(args, "file://"+file)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
	}
	return out
}

func drip(t testing.TB, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("drip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func readRecords(t testing.TB, path string) []*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := record.ReadAll(f, stats.Rederive)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

var (
	sectionRE    = regexp.MustCompile(`(?s)<section class="stream" data-stalls="(\d+)">(.*?)</section>`)
	labelRE      = regexp.MustCompile(`<span class="label">(#\d+)</span>`)
	stallLabelRE = regexp.MustCompile(`<g class="stall-label"><title>[^<]*</title><rect class="pause"[^>]*/?>(?:</rect>)?<rect class="pause"[^>]*/?>(?:</rect>)?<text[^>]*>([^<]*)</text>`)
	clockRowRE   = regexp.MustCompile(`<tr><td title="[^"]*">([^<]+)</td><td class="n">(\d+)</td>((?:<td>[^<]*</td>)+)</tr>`)
)

// TestHTMLReportMatchesTheRecords runs streams with stalls against the
// fixture server with --html and reads the page Chromium built: a row per
// stream, each stall labelled where the records put it, the clocks table
// holding the summary's figures, and a screenshot that is not blank.
func TestHTMLReportMatchesTheRecords(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	bin := buildDrip(t)
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	dir := t.TempDir()
	page, recFile := filepath.Join(dir, "run.html"), filepath.Join(dir, "run.jsonl")
	drip(t, bin, "run", srv.URL, "-m", "mid-sentence-stall", "--runs", "4", "--concurrency", "2", "--no-tui", "--out", recFile, "--html", page)
	recs := readRecords(t, recFile)
	dom := string(browse(t, browser, page, "--dump-dom"))
	if !strings.Contains(dom, `data-script="ran"`) {
		t.Error("the report's own script did not run: its CSP hash does not match it")
	}
	sections := sectionRE.FindAllStringSubmatch(dom, -1)
	if len(sections) != len(recs) {
		t.Fatalf("%d stream rows for %d records", len(sections), len(recs))
	}
	bySeq := map[string]*record.Record{}
	for _, r := range recs {
		bySeq["#"+strconv.Itoa(r.Seq+1)] = r
	}
	stalls := 0
	for _, s := range sections {
		label := labelRE.FindStringSubmatch(s[2])
		r := bySeq[label[1]]
		if r == nil {
			t.Fatalf("row %s is no record", label[1])
		}
		var want, got []string
		for _, st := range r.Stalls {
			want = append(want, textfmt.MS(st.GapMS))
		}
		for _, m := range stallLabelRE.FindAllStringSubmatch(s[2], -1) {
			got = append(got, m[1])
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || s[1] != strconv.Itoa(len(r.Stalls)) {
			t.Errorf("%s: stall labels %q (data-stalls %s), want %q", label[1], got, s[1], want)
		}
		if n := strings.Count(s[2], `<mark class="st"`); n != len(r.Stalls) {
			t.Errorf("%s: %d stall markers in the text, want %d", label[1], n, len(r.Stalls))
		}
		stalls += len(r.Stalls)
	}
	if stalls == 0 {
		t.Fatal("the fixture gave no stall: nothing was checked")
	}
	checkClocks(t, dom, compare.Summarize(compare.Input{Records: recs}).Metrics)
	if want := fmt.Sprintf("%d attempted · %d admitted · %d completed", len(recs), len(recs), len(recs)); !strings.Contains(dom, want) {
		t.Errorf("the accounting line lacks %q", want)
	}
	checkScreenshot(t, browser, page)
}

// checkClocks holds the clocks table to the summary: n and every figure.
func checkClocks(t *testing.T, dom string, m stats.Metrics) {
	t.Helper()
	rows := clockRowRE.FindAllStringSubmatch(dom, -1)
	if len(rows) < 10 {
		t.Fatalf("clocks table has %d rows", len(rows))
	}
	byLabel := map[string][]string{}
	for _, r := range rows {
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(r[3], "<td>"), "</td>"), "</td><td>")
		byLabel[r[1]] = append([]string{r[2]}, cells...)
	}
	for label, key := range map[string]string{"ttft": "ttft_ms", "gap": "gap_ms", "e2e": "e2e_ms", "tail": "tail_ms"} {
		d := m[key]
		want := []string{strconv.Itoa(d.N), textfmt.OptMS(d.Min), textfmt.OptMS(d.P50), textfmt.OptMS(d.P90), textfmt.OptMS(d.P95), textfmt.OptMS(d.P99), textfmt.OptMS(d.Max), textfmt.OptMS(d.Mean)}
		if got := byLabel[label]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("clocks row %s: %q, want %q", label, got, want)
		}
	}
}

// checkScreenshot renders the page to a PNG and fails when it is blank:
// the grey levels must vary.
func checkScreenshot(t *testing.T, browser, page string) {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "report.png")
	browse(t, browser, page, "--screenshot="+shot, "--window-size=1100,1600")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	sd, inked := greyStats(img)
	if sd < 20 || inked < 0.02 {
		t.Errorf("screenshot looks blank: grey level sd %.1f, %.1f%% of pixels not white", sd, 100*inked)
	}
	t.Logf("screenshot: grey level sd %.1f, %.1f%% of pixels not white", sd, 100*inked)
}

func greyStats(img image.Image) (sd, inked float64) {
	b := img.Bounds()
	var sum, sum2, n, dark float64
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			v := float64(r+g+bl) / 3 / 257
			sum, sum2, n = sum+v, sum2+v*v, n+1
			if v < 240 {
				dark++
			}
		}
	}
	mean := sum / n
	return math.Sqrt(sum2/n - mean*mean), dark / n
}

// TestHTMLStallMarkDrawn renders a report of stalls in Chromium with
// fontconfig limited to DejaVu, which has no U+23F8 (⏸): the page has no
// such character to show as a box, and its pause marks are drawn, in the
// stall colour, where hiding them leaves white.
func TestHTMLStallMarkDrawn(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	fcList := testenv.LookPath(t, "fc-list", "apt-get install -y fontconfig")
	bin := buildDrip(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "fonts.conf")
	if err := os.WriteFile(conf, []byte(`<?xml version="1.0"?><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>`+dir+`/fc</cachedir></fontconfig>`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "FONTCONFIG_FILE="+conf)
	list := exec.Command(fcList, ":charset=23f8", "file")
	list.Env = env
	if out, err := list.Output(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("fonts with U+23F8 under %s: %q (%v); want none", conf, out, err)
	}
	all := exec.Command(fcList, ":", "file")
	all.Env = env
	if out, err := all.CombinedOutput(); len(out) == 0 || err != nil {
		t.Fatalf("fc-list lists no font at all (%v): the page would have no font to draw the figures", err)
	}
	page := filepath.Join(dir, "stall.html")
	drip(t, bin, "view", "../compare/testdata/stall.jsonl", "--no-tui", "--html", page)
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsRune(raw, '\u23f8') {
		t.Fatal("the page has U+23F8, a box without a font that has it")
	}
	hidden := filepath.Join(dir, "hidden.html")
	noMarks := bytes.ReplaceAll(raw, []byte(`<rect class="pause"`), []byte(`<rect class="pause" visibility="hidden"`))
	noMarks = bytes.ReplaceAll(noMarks, []byte(`<i class="pause" aria-label="stall"></i>`), nil)
	if err := os.WriteFile(hidden, noMarks, 0o600); err != nil {
		t.Fatal(err)
	}
	shot := func(page string) image.Image {
		png := filepath.Join(dir, filepath.Base(page)+".png")
		args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
			"--user-data-dir=" + t.TempDir(), "--screenshot=" + png, "--window-size=1100,2400", "file://" + page}
		cmd := exec.Command(browser, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, out)
		}
		return decodePNG(t, png)
	}
	drawn, bare := shot(page), shot(hidden)
	marks := 0
	b := drawn.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if stallRed(drawn.At(x, y)) && !stallRed(bare.At(x, y)) {
				marks++
			}
		}
	}
	// Each timeline's mark is two 2.5 × 9 px bars: at least 30 pixels
	// for the six stalls of the first timelines on screen.
	if marks < 30 {
		t.Errorf("%d stall-coloured pixels come from the pause marks; want them drawn", marks)
	}
	t.Logf("pause marks: %d stall-coloured pixels that hiding them turns white", marks)
}

// stallRed tells the report's stall colour (#d7301f) from anything else,
// allowing for anti-aliasing.
func stallRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 160 && g>>8 < 110 && b>>8 < 100
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// hostile is a string that would run script, load a resource or navigate
// if it reached the page unescaped; every load points at host, a loopback
// server that counts requests.
func hostile(host string) string {
	return "\x1b]0;pwned\x07\x1b[2J</title></script><script>document.documentElement.setAttribute('data-pwned','script')</script>" +
		`<img src="http://` + host + `/img" onerror="document.documentElement.setAttribute('data-pwned','img')">` +
		`<svg onload="document.documentElement.setAttribute('data-pwned','svg')"></svg>` +
		`<a href="javascript:document.documentElement.setAttribute('data-pwned','link')">x</a>` +
		`<link rel="stylesheet" href="http://` + host + `/css"><iframe src="http://` + host + `/frame"></iframe>` +
		`<meta http-equiv="refresh" content="0;url=http://` + host + `/refresh">` +
		`<style>@import url(http://` + host + `/import);</style>" ' javascript:fetch('http://` + host + `/fetch')`
}

// hostileRecords writes records whose every string field is hostile.
func hostileRecords(t *testing.T, path, evil string) {
	t.Helper()
	recs := readRecords(t, "../compare/testdata/stall.jsonl")
	for i, r := range recs {
		r.Target, r.Model, r.PromptID, r.RunID, r.Host = evil, evil, evil, evil, evil
		r.Labels = map[string]string{evil: evil}
		r.Workload.Version = evil
		for j := range r.Frames {
			if r.Frames[j].IsContent() {
				r.Frames[j].Text = evil
			}
		}
		if i == 0 {
			r.Error = &record.Error{Class: evil, Message: evil}
			r.Frames = r.Frames[:len(r.Frames)/2]
		}
	}
	writeRecords(t, path, recs...)
}

// writeRecords writes recs to path through drip's one record writer.
func writeRecords(t testing.TB, path string, recs ...*record.Record) {
	t.Helper()
	w, err := record.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHTMLReportHostileRecords opens reports of hostile records (a run's
// and a comparison's, its runs named by a hostile field): none of their script runs
// (the sentinel attribute stays unset), no request reaches the loopback
// server their URLs point at, and the report's own script still runs.
func TestHTMLReportHostileRecords(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	bin := buildDrip(t)
	var hits atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer sink.Close()
	evil := hostile(strings.TrimPrefix(sink.URL, "http://"))
	dir := t.TempDir()
	recs := filepath.Join(dir, "hostile.jsonl")
	hostileRecords(t, recs, evil)
	view, cmp := filepath.Join(dir, "view.html"), filepath.Join(dir, "compare.html")
	drip(t, bin, "view", recs, "--no-tui", "--html", view)
	// Grouped by model, the runs are named by the hostile model.
	drip(t, bin, "compare", "--by", "model", recs, "../compare/testdata/steady.jsonl", "--no-tui", "--html", cmp)
	for _, page := range []string{view, cmp} {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(raw, []byte("<script")); n != 1 {
			t.Errorf("%s: %d <script elements, want the report's one", filepath.Base(page), n)
		}
		// The virtual time budget lets every timer, load and script the
		// page could start run out before the DOM is read.
		dom := string(browse(t, browser, page, "--virtual-time-budget=3000", "--dump-dom"))
		if m := regexp.MustCompile(`data-pwned="[^"]*"`).FindString(dom); m != "" {
			t.Errorf("%s: a record's script ran: %s", filepath.Base(page), m)
		}
		if !strings.Contains(dom, `data-script="ran"`) {
			t.Errorf("%s: the report's own script did not run", filepath.Base(page))
		}
		if !strings.Contains(dom, "javascript:fetch(") {
			t.Errorf("%s: the hostile text is not shown as text", filepath.Base(page))
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the browser made %d requests to the hostile records' URLs", n)
	}
}

// manyStreams writes n records made from the stall fixture's, each its
// own stream in sequence, a run offset apart, for the scale figures.
func manyStreams(t testing.TB, path string, n int) {
	t.Helper()
	base := readRecords(t, "../compare/testdata/stall.jsonl")
	recs := make([]*record.Record, n)
	for i := range recs {
		r := *base[i%len(base)]
		r.Seq, r.RunOffsetMS = i, float64(i)*50
		recs[i] = &r
	}
	writeRecords(t, path, recs...)
}

// maxBytes10k is the size docs/html-report.md states a 10,000-stream
// report stays under, read from its line "… stays under N MB …".
func maxBytes10k(t *testing.T) int64 {
	t.Helper()
	doc, err := os.ReadFile("../docs/html-report.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`10,000-stream report stays under (\d+(?:\.\d+)?) MB`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/html-report.md states no size for 10,000 streams")
	}
	mb, _ := strconv.ParseFloat(string(m[1]), 64)
	return int64(mb * 1e6)
}

// TestHTMLReport10000Streams holds a 10,000-stream report to the size the
// docs state and checks the page says which streams got a timeline.
func TestHTMLReport10000Streams(t *testing.T) {
	t.Parallel()
	limit := maxBytes10k(t)
	bin := buildDrip(t)
	dir := t.TempDir()
	recs, page := filepath.Join(dir, "10k.jsonl"), filepath.Join(dir, "10k.html")
	manyStreams(t, recs, 10000)
	drip(t, bin, "view", recs, "--no-tui", "--html", page)
	st, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > limit {
		t.Errorf("a 10,000-stream report is %d bytes, over the %d docs/html-report.md states", st.Size(), limit)
	}
	raw, _ := os.ReadFile(page)
	if want := "Timelines of 30 of 10000 measured streams"; !bytes.Contains(raw, []byte(want)) {
		t.Errorf("the page does not say which streams got a timeline (%q)", want)
	}
	t.Logf("10,000 streams: %d bytes", st.Size())
}

// BenchmarkHTMLReport renders reports of 100, 1,000 and 10,000 streams
// in Chromium: the time per op is Chromium's, from start to the DOM after
// scripts, its own start-up included (streams=0 is an empty page: that
// start-up alone); bytes is the file's size. The figures are in
// docs/html-report.md.
func BenchmarkHTMLReport(b *testing.B) {
	browser := chromium(b)
	bin := buildDrip(b)
	b.Run("streams=0", func(b *testing.B) {
		page := filepath.Join(b.TempDir(), "empty.html")
		if err := os.WriteFile(page, []byte("<!DOCTYPE html><title>empty</title>"), 0o600); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			browse(b, browser, page, "--dump-dom")
		}
	})
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			recs, page := filepath.Join(dir, "recs.jsonl"), filepath.Join(dir, "report.html")
			manyStreams(b, recs, n)
			drip(b, bin, "view", recs, "--no-tui", "--html", page)
			st, err := os.Stat(page)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				browse(b, browser, page, "--dump-dom")
			}
			b.ReportMetric(float64(st.Size()), "bytes")
		})
	}
}

var (
	comparisonRE = regexp.MustCompile(`(?s)<table id="comparison">(.*?)</table>`)
	sweepRE      = regexp.MustCompile(`(?s)<table id="sweep">(.*?)</table>`)
	rowRE        = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE       = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// tableRows are a table's rows as their cells' text.
func tableRows(table string) [][]string {
	var out [][]string
	for _, r := range rowRE.FindAllStringSubmatch(table, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, strings.TrimSpace(html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(c[1], ""))))
		}
		out = append(out, cells)
	}
	return out
}

// TestHTMLCompareAndSweep renders drip compare A B --html and a sweep
// (drip run's levels, and compare --by level of its records) and reads
// their tables from the DOM: every row of the comparison with its deltas
// and intervals as compare computes them, a row per level and the knee's
// verdict.
func TestHTMLCompareAndSweep(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	bin := buildDrip(t)
	dir := t.TempDir()
	a, b := "../compare/testdata/steady.jsonl", "../compare/testdata/stall.jsonl"
	page := filepath.Join(dir, "compare.html")
	drip(t, bin, "compare", a, b, "--no-tui", "--html", page)
	c, err := compare.New([]compare.Input{{Label: "A", Records: readRecords(t, a)}, {Label: "B", Records: readRecords(t, b)}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dom := string(browse(t, browser, page, "--dump-dom"))
	var want [][]string
	want = append(want, []string{"", "A (baseline)", "B", "Δ B", "% B", "95% CI B"})
	for _, s := range c.Sections {
		want = append(want, []string{s.Title})
		for _, r := range s.Rows {
			d := r.Deltas[1]
			ci := ""
			if d.CI != nil {
				ci = "[" + textfmt.Num(&d.CI.Lo) + ", " + textfmt.Num(&d.CI.Hi) + "]"
				if r.Unit == "ms" {
					ci = "[" + textfmt.MS(d.CI.Lo) + ", " + textfmt.MS(d.CI.Hi) + "]"
				}
			}
			want = append(want, []string{r.Label, compare.FormatValue(r, r.Values[0]), compare.FormatValue(r, r.Values[1]),
				strings.TrimSpace(compare.FormatDeltaAbs(r, d) + " " + compare.Marks(d)), compare.FormatDeltaPct(d), ci})
		}
	}
	m := comparisonRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("no comparison table")
	}
	if got := tableRows(m[1]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("comparison table:\n got %q\nwant %q", got, want)
	}

	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	recs, runPage, byLevel := filepath.Join(dir, "sweep.jsonl"), filepath.Join(dir, "sweep.html"), filepath.Join(dir, "by-level.html")
	drip(t, bin, "run", srv.URL, "-m", "steady", "--concurrency", "1,2", "--runs-per-level", "3", "--no-tui", "--out", recs, "--html", runPage)
	drip(t, bin, "compare", "--by", "level", recs, "--no-tui", "--html", byLevel)
	for _, p := range []string{runPage, byLevel} {
		dom := string(browse(t, browser, p, "--dump-dom"))
		m := sweepRE.FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%s: no sweep table", filepath.Base(p))
		}
		rows := tableRows(m[1])
		if len(rows) != 3 || rows[0][0] != "concurrency" || rows[1][0] != "1" || rows[2][0] != "2" || rows[1][1] != "3" || rows[2][1] != "3" {
			t.Errorf("%s: sweep table %q, want a head and levels 1 and 2 of 3 streams each", filepath.Base(p), rows)
		}
		if !regexp.MustCompile(`<p id="knee"><b>knee: `).MatchString(dom) {
			t.Errorf("%s: no knee verdict", filepath.Base(p))
		}
	}
}
