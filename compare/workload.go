package compare

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Difference is a workload setting that is not the same in every run. A
// latency difference may come from it rather than from the system.
type Difference struct {
	Setting string   `json:"setting"`
	Values  []string `json:"values"` // per run, as its records show it
}

// Workload settings, in the order the banner lists them.
const (
	setTarget    = "target"
	setFormat    = "format"
	setModel     = "model"
	setPrompts   = "prompt ids"
	setMaxTokens = "max tokens"
	setLengths   = "lengths asked"
	setLoad      = "concurrency or rate"
	setWarmup    = "warmup streams"
	setMeasured  = "measured streams"
	setStall     = "stall threshold"
	setVersion   = "drip version"
)

// SettingTarget names the target in a Difference (drip replay expects it
// to differ).
const SettingTarget = setTarget

// WhileMeasuring leaves out of c what runs still being measured differ in
// by their progress alone. From the workload banner it leaves out the
// count of measured streams and the prompt ids seen so far, every setting
// while a run has no record yet (each would differ from nothing), and a
// setting one run has seen part of another's values of (its models so
// far). From the figures it leaves out the worse mark on a count
// (completed 2 of 11 is not 80 % fewer) and its direction, so that fewer
// stalls so far reads as no better either. The
// comparison of the finished runs says everything.
func WhileMeasuring(c *Comparison) {
	unmarkCounts(c.Sections)
	for _, p := range c.Prompts {
		unmarkCounts(p.Sections)
	}
	for _, r := range c.Runs {
		if len(r.Records) == 0 {
			c.Workload = nil
			return
		}
	}
	c.Workload = slices.DeleteFunc(c.Workload, func(d Difference) bool {
		return d.Setting == setMeasured || d.Setting == setPrompts || nested(d.Values)
	})
}

// nested reports whether a setting's values differ only as one run has
// seen part of another's, as "m1, m2" beside "m1" when the replay has not
// come to m2 yet.
func nested(values []string) bool {
	sets := make([][]string, len(values))
	for i, v := range values {
		sets[i] = strings.Split(v, ", ")
	}
	within := func(a, b []string) bool {
		return !slices.ContainsFunc(a, func(v string) bool { return !slices.Contains(b, v) })
	}
	for _, a := range sets {
		for _, b := range sets {
			if !within(a, b) && !within(b, a) {
				return false
			}
		}
	}
	return true
}

func unmarkCounts(secs []Section) {
	for _, sec := range secs {
		for i := range sec.Rows {
			r := &sec.Rows[i]
			if !r.Count {
				continue
			}
			r.Better = stats.Neutral
			for _, d := range r.Deltas {
				if d != nil {
					d.Worse = false
				}
			}
		}
	}
}

var settingOrder = []string{setTarget, setFormat, setModel, setPrompts, setMaxTokens, setLengths, setLoad, setWarmup, setMeasured, setStall, setVersion}

const notRecorded = "not recorded"

// settingsOf reads a run's workload from its records, what every record
// shows (target, format, model, prompt id, phase, stall threshold) and the
// settings drip stamps on them (max tokens, concurrency, rate, version).
func settingsOf(recs []*record.Record) map[string]string {
	var measured []*record.Record
	warmup := 0
	for _, r := range recs {
		if r.Phase == record.PhaseWarmup {
			warmup++
		} else {
			measured = append(measured, r)
		}
	}
	stamped := func(f func(*record.RecordWorkload) string) func(*record.Record) string {
		return func(r *record.Record) string {
			if r.Workload == nil {
				return notRecorded
			}
			return f(r.Workload)
		}
	}
	return map[string]string{
		setTarget:  distinct(recs, func(r *record.Record) string { return r.Target }),
		setFormat:  distinct(recs, func(r *record.Record) string { return r.Format }),
		setModel:   distinct(recs, func(r *record.Record) string { return r.Model }),
		setPrompts: strings.Join(promptIDs(measured), ", "),
		setMaxTokens: distinct(recs, stamped(func(w *record.RecordWorkload) string {
			if w.MaxTokens == 0 {
				return "server default"
			}
			return strconv.Itoa(w.MaxTokens)
		})),
		// A record without the stamp asked for no lengths drip knows of.
		// "not recorded" here would only repeat the other settings' note.
		setLengths: distinct(recs, func(r *record.Record) string {
			if r.Workload == nil {
				return "the prompts' own"
			}
			return cmp.Or(r.Workload.LengthWords(), "the prompts' own")
		}),
		setLoad: distinct(recs, stamped(func(w *record.RecordWorkload) string {
			if w.Rate > 0 {
				return strings.TrimSuffix("open loop, "+strconv.FormatFloat(w.Rate, 'f', -1, 64)+"/s "+w.Arrival, " ")
			}
			return fmt.Sprintf("closed loop, %d in flight", max(w.Concurrency, 1))
		})),
		setWarmup:   strconv.Itoa(warmup),
		setMeasured: strconv.Itoa(len(measured)),
		setStall:    distinct(recs, func(r *record.Record) string { return textfmt.MS(r.StallMS) }),
		setVersion:  distinct(recs, stamped(func(w *record.RecordWorkload) string { return cmp.Or(w.Version, notRecorded) })),
	}
}

// distinct lists the different values of f over recs, sorted.
func distinct(recs []*record.Record, f func(*record.Record) string) string {
	set := map[string]bool{}
	for _, r := range recs {
		set[f(r)] = true
	}
	return strings.Join(slices.Sorted(maps.Keys(set)), ", ")
}

// differences lists every setting in which some run differs from the
// baseline. Prompt ids are shown as what each run lacks or adds.
func differences(runs []Run) []Difference {
	var out []Difference
	for _, s := range settingOrder {
		base := runs[0].settings[s]
		if !slices.ContainsFunc(runs[1:], func(r Run) bool { return r.settings[s] != base }) {
			continue
		}
		d := Difference{Setting: s}
		for i, r := range runs {
			v := r.settings[s]
			if s == setPrompts {
				v = describePrompts(promptIDs(r.measured), promptIDs(runs[0].measured), i == 0)
			}
			d.Values = append(d.Values, v)
		}
		out = append(out, d)
	}
	return out
}

// describePrompts says how many prompt ids a run has and, against the
// baseline, which ones it adds and which it lacks.
func describePrompts(ids, base []string, isBase bool) string {
	s := fmt.Sprintf("%d: %s", len(ids), abbreviate(ids))
	if isBase {
		return s
	}
	var extra, missing []string
	for _, id := range ids {
		if !slices.Contains(base, id) {
			extra = append(extra, id)
		}
	}
	for _, id := range base {
		if !slices.Contains(ids, id) {
			missing = append(missing, id)
		}
	}
	var parts []string
	if len(extra) > 0 {
		parts = append(parts, "not in baseline: "+abbreviate(extra))
	}
	if len(missing) > 0 {
		parts = append(parts, "missing: "+abbreviate(missing))
	}
	return s + " (" + strings.Join(parts, "; ") + ")"
}

// abbreviate lists up to four ids.
func abbreviate(ids []string) string {
	const show = 4
	if len(ids) <= show {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:show], ", ") + fmt.Sprintf(", … %d more", len(ids)-show)
}

// WorkloadOf is the summary's workload of a file of records, as far as the
// records show it, so compare and view describe a file alike.
func WorkloadOf(recs []*record.Record) stats.Workload {
	var measured []*record.Record
	for _, r := range recs {
		if r.Phase != record.PhaseWarmup {
			measured = append(measured, r)
		}
	}
	return workloadOf(recs, measured)
}

func workloadOf(recs, measured []*record.Record) stats.Workload {
	st := settingsOf(recs)
	warmup := len(recs) - len(measured)
	w := stats.Workload{
		Target: st[setTarget], Format: st[setFormat], Model: st[setModel],
		Runs: len(measured), Warmup: warmup, PromptIDs: promptIDs(measured),
		WarmupRule: "no warmup",
	}
	if warmup > 0 {
		// Name them as the screens number them (#seq+1), so a reader can
		// find the streams the figures leave out.
		var ids []string
		for _, r := range recs {
			if r.Phase == record.PhaseWarmup {
				ids = append(ids, fmt.Sprintf("#%d", r.Seq+1))
			}
		}
		w.WarmupRule = fmt.Sprintf("%s in the records (%s), excluded from every figure", stats.Count(warmup, "warmup stream"), abbreviate(ids))
	}
	for _, r := range recs {
		if r.Workload != nil {
			w.MaxTokens, w.Concurrency, w.Rate = r.Workload.MaxTokens, r.Workload.Concurrency, r.Workload.Rate
			break
		}
	}
	// Every version that wrote the records counts. A file merged from hosts on
	// two drip versions says both, not the first record's. Records without
	// one add nothing (not an empty name).
	versioned := slices.DeleteFunc(slices.Clone(recs), func(r *record.Record) bool { return r.Workload == nil || r.Workload.Version == "" })
	w.Version = distinct(versioned, func(r *record.Record) string { return r.Workload.Version })
	return w
}

// mergeSettings are the settings runs must share to be one run from many
// hosts, what was asked of which endpoint, under what load. Counts and
// prompt ids may differ (a shard sends a slice of the prompts).
var mergeSettings = []string{setTarget, setFormat, setModel, setMaxTokens, setLoad, setStall}

// mergeNotes are the settings runs may differ in and still be merged, but
// that the merge says. Figures from two drip versions are one run only
// when the versions measure alike.
var mergeNotes = []string{setVersion}

// MergeDifferences lists the settings in which some input differs from the
// first and that keep them from being merged into one run.
func MergeDifferences(inputs []Input) []Difference { return inputDifferences(inputs, mergeSettings) }

// MergeNotes lists the settings in which some input differs from the first
// that do not keep them from being merged: the drip version.
func MergeNotes(inputs []Input) []Difference { return inputDifferences(inputs, mergeNotes) }

func inputDifferences(inputs []Input, settings []string) []Difference {
	runs := make([]Run, len(inputs))
	for i, in := range inputs {
		runs[i] = Run{Input: in, settings: settingsOf(in.Records)}
	}
	var out []Difference
	for _, d := range differences(runs) {
		if slices.Contains(settings, d.Setting) {
			out = append(out, d)
		}
	}
	return out
}
