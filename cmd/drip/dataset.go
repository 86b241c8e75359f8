package main

import (
	"context"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/probe"
)

// datasetFlags take the workloads vLLM and AIPerf users bring, under
// drip's names and theirs. They take a ShareGPT file (vLLM's
// --dataset-name sharegpt --dataset-path F), a mooncake trace (AIPerf's
// --input-file F --custom-dataset-type mooncake_trace), and an open loop's
// arrivals as they shape them (vLLM's --burstiness, AIPerf's rate ramp).
type datasetFlags struct {
	sharegpt, trace string
	name, path      string // vLLM's --dataset-name, --dataset-path
	inputFile, kind string // AIPerf's --input-file, --custom-dataset-type
	burstiness      float64
	ramp            rampValue
}

func (f *datasetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.sharegpt, "sharegpt", "", "prompts from a ShareGPT file, as vLLM reads one: each conversation's first turn, max_tokens its answer's length (vLLM: --dataset-name sharegpt --dataset-path FILE)")
	fs.StringVar(&f.trace, "trace", "", "a mooncake trace (JSON Lines, as drip export aiperf writes): each line sent at its timestamp, input_length words of prompt, max_tokens its output_length (AIPerf: --input-file FILE --custom-dataset-type mooncake_trace)")
	fs.Float64Var(&f.burstiness, "burstiness", 1, "open loop: gamma arrivals of this shape, mean 1/rate, as vLLM's: under 1 burstier than Poisson, 1 Poisson, over 1 more even")
	fs.Var(&f.ramp, "ramp", "open loop: the rate rises linearly from 0 to --rate over this long, then holds (e.g. 30s; AIPerf: --request-rate-ramp-duration SECONDS)")
	for _, h := range []struct{ name, usage string }{
		{"dataset-name", "vLLM's: sharegpt (drip: --sharegpt)"},
		{"dataset-path", "vLLM's: the dataset's file"},
		{"input-file", "AIPerf's: the dataset's file"},
		{"custom-dataset-type", "AIPerf's: mooncake_trace (drip: --trace)"},
	} {
		p := map[string]*string{"dataset-name": &f.name, "dataset-path": &f.path, "input-file": &f.inputFile, "custom-dataset-type": &f.kind}[h.name]
		fs.StringVar(p, h.name, "", h.usage)
		_ = fs.MarkHidden(h.name) // other tools' names are hidden, and the help lists drip's
	}
	fs.Var(&f.ramp, "request-rate-ramp-duration", "AIPerf's --ramp, in seconds")
	fs.Bool("fixed-schedule", false, "AIPerf's: drip always sends a trace on its timestamps")
	for _, n := range []string{"request-rate-ramp-duration", "fixed-schedule"} {
		_ = fs.MarkHidden(n)
	}
}

// rampValue is --ramp, a duration or bare seconds as AIPerf writes it.
type rampValue struct{ d time.Duration }

func (r *rampValue) String() string {
	if r.d == 0 {
		return ""
	}
	return r.d.String()
}

func (r *rampValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		sec, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || sec < 0 || sec > 1e6 {
			return err
		}
		d = time.Duration(sec * float64(time.Second))
	}
	r.d = d
	return nil
}

func (r *rampValue) Type() string { return "duration" }

// files resolves drip's and the other tools' names to a ShareGPT file or
// a trace, or neither.
func (f *datasetFlags) files() (sharegpt, trace string, err error) {
	switch {
	case f.name != "" && f.name != probe.DatasetShareGPT:
		return "", "", usageErr("--dataset-name %s: drip reads sharegpt files (--sharegpt FILE) and mooncake traces (--trace FILE); for random lengths use --input-tokens and --output-tokens", sanitize.Line(f.name))
	case f.name != "" && f.path == "":
		return "", "", usageErr("--dataset-name sharegpt needs --dataset-path FILE")
	case f.kind != "" && f.kind != probe.DatasetMooncake:
		return "", "", usageErr("--custom-dataset-type %s: drip reads mooncake_trace (--trace FILE); for single_turn prompts use --prompt-file with a .jsonl of {\"id\",\"prompt\"}", sanitize.Line(f.kind))
	case f.kind != "" && f.inputFile == "":
		return "", "", usageErr("--custom-dataset-type mooncake_trace needs --input-file FILE")
	}
	sharegpt, trace = firstOf(f.sharegpt, f.path), firstOf(f.trace, f.inputFile)
	if sharegpt != "" && trace != "" {
		return "", "", usageErr("a ShareGPT file and a trace both give the prompts: pick one")
	}
	return sharegpt, trace, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// load reads the dataset the flags name into the load (a trace) or the
// returned ShareGPT set, and shapes the open loop's arrivals. What it
// refuses is how the flags go together. explicit says -p, --prompt-file,
// --prompts or a fixed body gave the prompts.
func (f *datasetFlags) load(ctx context.Context, fs *pflag.FlagSet, l *probe.Load, explicit bool) (*probe.ShareGPT, error) {
	if err := f.arrivals(fs, l); err != nil {
		return nil, err
	}
	sharegpt, trace, err := f.files()
	if err != nil || sharegpt == "" && trace == "" {
		return nil, err
	}
	switch {
	case explicit:
		return nil, usageErr("a dataset (--sharegpt, --trace) gives the prompts: drop -p, --prompt-file, --prompts, -d and --body")
	case fs.Changed("input-tokens"):
		return nil, usageErr("--input-tokens makes synthetic prompts and a dataset gives them: pick one")
	case trace != "" && (l.Rate > 0 || fs.Changed("concurrency") || fs.Changed("arrival") || fs.Changed("burstiness") || f.ramp.d > 0):
		return nil, usageErr("a trace's timestamps are its arrivals: drop --rate, --concurrency, --arrival, --burstiness and --ramp")
	case trace != "":
		tr, err := probe.LoadTrace(ctx, trace)
		if err != nil {
			return nil, usageErr("--trace %v", err)
		}
		l.Trace = &tr
		return nil, nil
	}
	sg, err := probe.LoadShareGPT(ctx, sharegpt)
	if err != nil {
		return nil, usageErr("--sharegpt %v", err)
	}
	return &sg, nil
}

// arrivals sets gamma arrivals from --burstiness (--arrival gamma alone is
// burstiness 1, Poisson) and the ramp.
func (f *datasetFlags) arrivals(fs *pflag.FlagSet, l *probe.Load) error {
	if fs.Changed("burstiness") || l.Arrival == probe.ArrivalGamma {
		if fs.Changed("arrival") && l.Arrival != probe.ArrivalGamma {
			return usageErr("--burstiness shapes gamma arrivals: drop --arrival %s (or give --arrival gamma)", sanitize.Line(l.Arrival))
		}
		if l.Rate == 0 {
			return usageErr("--burstiness shapes an open loop's arrivals: add --rate")
		}
		l.Arrival, l.Burstiness = probe.ArrivalGamma, f.burstiness
	}
	if f.ramp.d > 0 && l.Rate == 0 {
		return usageErr("--ramp %v raises an open loop's rate from 0: give --rate", f.ramp.d)
	}
	l.Ramp = f.ramp.d
	return nil
}

// sampleShareGPT draws the run's prompts from a ShareGPT set once the seed is
// known, as vLLM samples --num-prompts of them, and names the dataset in
// the workload.
func sampleShareGPT(sg *probe.ShareGPT, p *probe.Plan) {
	p.Prompts = sg.Sample(p.Runs, p.Seed)
	p.Lengths.Dataset = probe.DatasetShareGPT + " " + sg.Name
}
