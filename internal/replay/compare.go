package replay

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// comparison compares a replay with its recording, the baseline. The target
// differs by design (--against is another server), so it is the one
// workload difference not warned of. Every other one still is.
func comparison(recorded, replayed compare.Input, gates []stats.Gate) (*compare.Comparison, error) {
	c, err := compare.New([]compare.Input{recorded, replayed}, compare.Options{Gates: gates})
	if err != nil {
		return nil, err
	}
	c.Workload = slices.DeleteFunc(c.Workload, func(d compare.Difference) bool { return d.Setting == compare.SettingTarget })
	return c, nil
}

// LiveComparison is the recording beside what the replay has replayed so
// far, of total streams (none when --duration cycles). Its banner leaves
// out what the replay's progress explains until the end.
func LiveComparison(recorded compare.Input, recs []*record.Record, total int, cycling, final bool, gates []stats.Gate) *compare.Comparison {
	label := fmt.Sprintf("replayed %d of %d", len(recs), total)
	if cycling {
		label = fmt.Sprintf("replayed %d", len(recs))
	}
	if final && (cycling || len(recs) >= total) {
		label = "replayed" // else stopped on the screen, so it keeps its "of total"
	}
	c, _ := comparison(recorded, compare.Input{Label: label, Records: recs}, gates)
	if c != nil && !final {
		compare.WhileMeasuring(c)
	}
	return c
}

// SignedFormat is a Bedrock format when the recording holds Bedrock
// streams (they get SigV4 on an AWS host), else the first stream's.
func SignedFormat(streams []*record.Record) *adapters.Format {
	for _, r := range streams {
		if strings.HasPrefix(r.Format, "bedrock-") {
			return adapters.Lookup(r.Format)
		}
	}
	if f := adapters.Lookup(streams[0].Format); f != nil {
		return f
	}
	return adapters.Auto
}

// Announce says on w what is about to be replayed. It says how many of the
// recording's streams from path, against where, paced how, what is left
// out and why, the masked bodies sent as they were kept, and a --against
// whose path the recorded paths already hold.
func Announce(w io.Writer, path string, recs, streams []*record.Record, o Options) {
	fmt.Fprintf(w, "drip replay: %s from %s → %s, paced by %s", stats.Count(len(streams), "recorded stream"),
		sanitize.Line(path), sanitize.Line(probe.RedactURL(o.Against)), o.Policy())
	if not := NotReplayed(recs, o.AllowMethods...); not != "" {
		fmt.Fprintf(w, " (not replayed: %s)", not)
	}
	fmt.Fprintln(w)
	if masked := MaskedBodies(streams); masked != "" {
		fmt.Fprintln(w, "drip replay: note:", masked)
	}
	if sentTo, instead := RepeatedBase(streams, o.Against); sentTo != "" {
		fmt.Fprintf(w, "drip replay: warning: every recorded path already starts with --against's path, so the first is sent to %s; give the origin, --against %s, to send the recorded paths as they were\n",
			sanitize.Line(probe.RedactURL(sentTo)), sanitize.Line(probe.RedactURL(instead)))
	}
}

// SayLag tells on w how closely a paced replay kept to its schedule.
func (o Options) SayLag(w io.Writer, st stats.RunStats) {
	if lag := o.Lag(st); lag != "" {
		fmt.Fprintln(w, "drip replay:", lag)
	}
}

// UpperMethods is each method in upper case, as the replay compares them,
// so --allow-method put allows PUT.
func UpperMethods(methods []string) []string {
	out := make([]string, len(methods))
	for i, m := range methods {
		out[i] = strings.ToUpper(strings.TrimSpace(m))
	}
	return out
}
