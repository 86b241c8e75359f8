// Package htmlreport writes drip's report as one self-contained HTML file.
// It holds the figures of a run (stats.Summary), its streams' timelines and text,
// the aggregate panels over every stream, a sweep's table, or a comparison
// of runs (compare.Comparison) side by side. It draws what those packages
// computed and computes no figure of its own beyond laying out marks.
//
// The file loads nothing. Its CSS and SVG are inline, and its one script
// is allowed by hash in a Content-Security-Policy that forbids every other
// script and every network load. html/template escapes every string that
// came from a record in its context, so a hostile record can neither run
// script nor make the browser fetch anything.
package htmlreport

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
	"math"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

var (
	//go:embed style.css
	styleCSS string
	//go:embed script.js
	scriptJS string
	//go:embed page.tmpl
	pageTmpl string
)

// csp forbids every load (default-src 'none') and lets in only the
// report's own style and script, named by their hashes. A script or style
// a record smuggled in would have another hash and is not run.
var csp = "default-src 'none'; script-src " + hashSource(scriptJS) + "; style-src " + hashSource(styleCSS) +
	"; img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'"

func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

var page = template.Must(template.New("page").Funcs(funcs).Parse(pageTmpl))

// Run is what a run's report is made of.
type Run struct {
	Summary *stats.Summary   // the figures, gates judged (pipeline.Report's)
	Records []*record.Record // every record of the run, warmup included
	Sweep   *sweep.Result    // a sweep's levels, nil when it was no sweep
}

// doc is the page the template draws, a run or a comparison.
type doc struct {
	CSP     string
	Style   template.CSS
	Script  template.JS
	Title   string
	Run     *runPage
	Compare *comparePage
}

func newDoc(title string) *doc {
	return &doc{CSP: csp, Style: template.CSS(styleCSS), Script: template.JS(scriptJS), Title: title}
}

// WriteRun writes the report of one run.
func WriteRun(w io.Writer, r Run) error {
	d := newDoc("drip report · " + r.Summary.Workload.Target)
	d.Run = newRunPage(r)
	return execute(w, d)
}

// WriteComparison writes the report of runs compared side by side (drip
// compare, drip replay), with the sweep's levels for compare --by level.
func WriteComparison(w io.Writer, c *compare.Comparison) error {
	d := newDoc("drip compare · " + c.Runs[0].Label)
	d.Compare = newComparePage(c)
	return execute(w, d)
}

// execute writes the page through sanitize.Writer. Whatever string from a
// record was not passed through sanitize on its way in, no control byte
// reaches the file. The page's own text has none, so the hashes hold.
func execute(w io.Writer, d *doc) error { return page.Execute(sanitize.NewWriter(w), d) }

// funcs are the template's arithmetic, offsets of labels from their marks.
var funcs = template.FuncMap{"add": func(a, b float64) float64 { return a + b }}

// ClockStats are the clocks table's columns, for the template.
func (p *runPage) ClockStats() []string { return clockStats }

// r1 rounds a coordinate to a tenth, which is enough for a screen and
// keeps the file small.
func r1(v float64) float64 { return math.Round(v*10) / 10 }
