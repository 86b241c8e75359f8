package main

import (
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/probe"
)

// fleetFlags say where a run ran and what it is part of: the host and the
// user's labels on every record, for merging runs from many hosts.
type fleetFlags struct {
	labels    []string
	hostLabel string
}

func (f *fleetFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.labels, "label", nil, "tag every record (and exported series) with k=v, e.g. --label region=eu --label build=1234 (repeatable)")
	fs.StringVar(&f.hostLabel, "host-label", "", "the host name records carry (default: this machine's hostname)")
}

// labelKey is a name that every receiver accepts: Prometheus's label rule.
var labelKey = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// reservedLabels are names drip sets itself on records or series.
var reservedLabels = []string{"host", "target", "model", "format", "prompt_id", "status", "error_class", "phase", "le", "job", "instance"}

// apply checks the flags and stamps the plan with the host and labels.
func (f *fleetFlags) apply(p *probe.Plan) error {
	for _, kv := range f.labels {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || v == "":
			return usageErr("--label %q: want k=v", kv)
		case !labelKey.MatchString(k):
			return usageErr("--label %q: the key must be letters, digits and _ (not starting with a digit)", kv)
		case slices.Contains(reservedLabels, k):
			return usageErr("--label %q: %s is drip's own (reserved: %s)", kv, k, strings.Join(reservedLabels, ", "))
		case p.Labels[k] != "":
			return usageErr("--label %q: %s given twice", kv, k)
		}
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = v
	}
	p.Host = f.hostLabel
	if p.Host == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = "unknown"
		}
		p.Host = h
	}
	return nil
}
