package pipeline

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Targets are the pipelines of several targets measured side by side, one
// each (its own --out file), in the order of their letters.
type Targets struct {
	Names []string
	Files []string // each target's --out file, or nil without --out
	P     []*Pipeline

	mu     sync.Mutex
	runIDs map[string]int // a target's run IDs → its index
}

// NewTargets opens a pipeline per target. Each gets a record file under
// out's name with the target's letter (FILE-A.jsonl, FILE-B.jsonl), and
// all share one CSV.
func NewTargets(names []string, stallMS float64, out, csv string) (*Targets, error) {
	t := &Targets{Names: names, P: make([]*Pipeline, len(names)), runIDs: map[string]int{}}
	var shared []Sink
	if csv != "" {
		s, err := CSV("--csv", csv)
		if err != nil {
			return nil, err
		}
		shared = append(shared, Shared(s))
	}
	for i := range names {
		t.P[i] = New(stallMS, nil)
		t.P[i].KeepRecords()
		t.P[i].Attach(shared...)
		if out == "" {
			continue
		}
		t.Files = append(t.Files, TargetPath(out, i))
		s, err := JSONL("--out", t.Files[i])
		if err != nil {
			t.Close()
			return nil, err
		}
		t.P[i].Attach(s)
	}
	return t, nil
}

// Close closes every target's sinks, the errors joined.
func (t *Targets) Close() error {
	var errs []error
	for _, p := range t.P {
		if p != nil {
			errs = append(errs, p.Close())
		}
	}
	return errors.Join(errs...)
}

// Bind files the records of runID under target i.
func (t *Targets) Bind(runID string, i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.runIDs[runID] = i
}

// Add files a finished record under the target its run ID is bound to.
func (t *Targets) Add(r *record.Record) {
	t.mu.Lock()
	i := t.runIDs[r.RunID]
	t.mu.Unlock()
	t.P[i].Add(r)
}

// TargetPath is target i's record file, --out with the target's letter
// before the extension. So watch.jsonl gives watch-A.jsonl and
// watch-B.jsonl, and each file is one run for drip compare.
func TargetPath(out string, i int) string {
	ext := filepath.Ext(out)
	return fmt.Sprintf("%s-%s%s", strings.TrimSuffix(out, ext), compare.Letter(i), ext)
}

// Report closes the sinks, prints every target's summary under its
// letter, then the comparison of their runs against the first, and
// judges the gates per target.
func (t *Targets) Report(stdout, stderr io.Writer, gates []stats.Gate, wl func(i int, first *record.Record) stats.Workload) error {
	var werr error
	for _, p := range t.P {
		if err := p.Finish(); werr == nil {
			werr = err
		}
	}
	if werr != nil {
		return werr
	}
	inputs := make([]compare.Input, 0, len(t.P))
	var conventions *stats.Conventions // said once, after every target's summary
	for i, p := range t.P {
		fmt.Fprintf(stdout, "── %s %s ──\n", compare.Letter(i), t.Names[i])
		recs := p.Records()
		if len(recs) == 0 {
			fmt.Fprintln(stdout, "no finished stream")
			continue
		}
		s := p.agg.Summary(wl(i, recs[0]))
		s.Workload.Format = p.found(s.Workload.Format)
		report.TextBody(stdout, &s)
		fmt.Fprintln(stdout)
		if conventions == nil {
			conventions = &s.Conventions
		}
		label := t.Names[i]
		if t.Files != nil {
			label = t.Files[i]
		}
		inputs = append(inputs, compare.Input{Label: label, Records: recs})
	}
	if conventions != nil {
		report.Conventions(stdout, *conventions)
		fmt.Fprintln(stdout)
	}
	if len(inputs) == len(t.P) {
		if c, err := compare.New(inputs, compare.Options{}); err == nil {
			compare.Text(stdout, c)
		}
	}
	for i, f := range t.Files {
		fmt.Fprintf(stderr, "drip: %d records written to %s\n", len(t.P[i].Records()), f)
	}
	tripped := t.judge(stderr, gates)
	if err := t.noneCompleted(); err != nil {
		return err
	}
	return tripped
}

// noneCompleted is exit 3 naming the first target none of whose measured
// streams completed, as that target run alone would end, unless the user
// stopped one of its streams.
func (t *Targets) noneCompleted() error {
	for i, p := range t.P {
		s := p.agg.Summary(stats.Workload{})
		if st := s.Streams; st.Attempted > 0 && st.Completed == 0 && st.Canceled == 0 {
			return Cannot(fmt.Errorf("%s %s: %v", compare.Letter(i), t.Names[i], p.noneCompleted(&s)))
		}
	}
	return nil
}

// judge prints each target's gate verdicts. It returns ErrGateTripped when
// one tripped for any target.
func (t *Targets) judge(stderr io.Writer, gates []stats.Gate) error {
	if len(gates) == 0 {
		return nil
	}
	var tripped error
	for i, p := range t.P {
		fmt.Fprintf(stderr, "gates for %s:\n", compare.Letter(i))
		s := p.agg.Summary(stats.Workload{})
		if GateLines(stderr, &s, gates) {
			tripped = ErrGateTripped
		}
	}
	return tripped
}

// ReportInterleaved is Report for plans run in interleaved turns
// (probe.Interleave), one per target. Each target's workload says so. As
// with one target, a target no stream reached is a run that could not be
// carried out (exit 3, the report printed all the same) unless the run
// was interrupted.
func (t *Targets) ReportInterleaved(stdout, stderr io.Writer, gates []stats.Gate, plans []probe.Plan, version string, interrupted bool) error {
	err := t.Report(stdout, stderr, gates, func(i int, _ *record.Record) stats.Workload {
		w := WorkloadOf(&plans[i], version)
		w.Order = fmt.Sprintf("interleaved with %s in turns of %d; throughput's window spans their turns too", stats.Count(len(plans)-1, "other target"), max(1, plans[i].Concurrency))
		return w
	})
	if (err != nil && err != ErrGateTripped) || interrupted {
		return err
	}
	for i, p := range t.P {
		if len(p.Records()) > 0 && !p.Reached() {
			return Cannot(fmt.Errorf("no response from %s (%s): every stream failed before headers", t.Names[i], probe.RedactURL(plans[i].Target.URL)))
		}
	}
	return err
}

// PairTargets pairs URLs with models (-m). None or one model applies to
// every URL, one per URL pairs them in order, and several with one URL
// make one target per model. It returns each target's URL and model, and
// its name (TargetNames). Any other count is a usage error.
func PairTargets(urls, models []string) (targetURLs, targetModels, names []string, err error) {
	switch {
	case len(models) <= 1:
		models = slices.Repeat([]string{strings.Join(models, "")}, len(urls)) // the one model, or none
	case len(urls) == 1:
		urls = slices.Repeat(urls, len(models))
	case len(models) != len(urls):
		return nil, nil, nil, Usage("-m given %d times for %s: give it once (every URL), once per URL, or several times with one URL", len(models), stats.Count(len(urls), "URL"))
	}
	return urls, models, TargetNames(urls, models), nil
}

// TargetNames name targets by what tells them apart. That is the host (and
// path when hosts repeat) and the model when models differ.
func TargetNames(urls, models []string) []string {
	hosts := make([]string, len(urls))
	for i, raw := range urls {
		hosts[i] = probe.RedactURL(raw)
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			hosts[i] = u.Host
		}
	}
	sameHost := allEqual(hosts)
	sameModel := allEqual(models)
	// Hosts that repeat tell targets apart only with their paths, unless
	// one host serves models that differ (the model then names them).
	if !allDistinct(hosts) && (!sameHost || sameModel) {
		for i, raw := range urls {
			hosts[i] = probe.RedactURL(raw)
		}
	}
	names := make([]string, len(urls))
	for i := range urls {
		var parts []string
		if !sameHost || sameModel {
			parts = append(parts, hosts[i])
		}
		if !sameModel && models[i] != "" {
			parts = append(parts, models[i])
		}
		names[i] = strings.Join(parts, " ")
	}
	return names
}

func allEqual(s []string) bool {
	for _, v := range s {
		if v != s[0] {
			return false
		}
	}
	return true
}

func allDistinct(s []string) bool {
	seen := map[string]bool{}
	for _, v := range s {
		if seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
