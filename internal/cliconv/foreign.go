package cliconv

import "github.com/spf13/pflag"

// aliases are the names other load tools (vLLM bench serve, NVIDIA
// AIPerf, k6, curl) give drip's flags, taken as drip's own because they
// mean the same. --num-prompts, --request-count and k6's --iterations
// are how many requests the tool sends, which is --runs.
var aliases = map[string]string{
	"request-rate":                "rate",
	"max-concurrency":             "concurrency",
	"num-prompts":                 "runs",
	"request-count":               "runs",          // AIPerf
	"iterations":                  "runs",          // k6
	"vus":                         "concurrency",   // k6: virtual users, each one stream at a time
	"random-input-len":            "input-tokens",  // vLLM's random dataset
	"random-output-len":           "output-tokens", // vLLM's random dataset
	"synthetic-input-tokens-mean": "input-tokens",  // AIPerf
	"output-tokens-mean":          "output-tokens", // AIPerf
	"random-seed":                 "seed",          // AIPerf
	"data-raw":                    "data",          // curl
}

// pointer is what drip says of another tool's flag it does not take: the
// drip flag the pointer names (it is said only by a command that has
// that flag) and the one line that says what to type instead.
type pointer struct{ flag, say string }

// pointers are other tools' flags whose meaning drip spells another way,
// by long name.
var pointers = map[string]pointer{
	"url":                           {"format", "AIPerf's --url is drip's argument: drip run http://host:8000/v1"},
	"base-url":                      {"format", "vLLM's --base-url is drip's argument: drip run http://host:8000/v1 (a base URL gets the format's endpoint)"},
	"host":                          {"format", "vLLM's --host and --port are drip's argument: drip run http://host:8000/v1"},
	"port":                          {"format", "vLLM's --host and --port are drip's argument: drip run http://host:8000/v1"},
	"endpoint":                      {"format", "vLLM's --endpoint is the URL's path: drip run http://host:8000/v1/completions"},
	"endpoint-type":                 {"format", "AIPerf's --endpoint-type is drip's --format (chat is openai-chat, completions openai-completions)"},
	"backend":                       {"format", "vLLM's --backend is drip's --format (openai-chat, openai-completions, tgi, …)"},
	"request":                       {"format", "curl's -X/--request: drip always POSTs the format's request (-d sends your own body)"},
	"max-time":                      {"timeout", "curl's --max-time is drip's --timeout, with a unit (--timeout 30s)"},
	"benchmark-duration":            {"duration", "AIPerf's --benchmark-duration is drip's --duration, with a unit (--duration 60s)"},
	"api-key":                       {"header", "AIPerf's --api-key is a header: -H 'Authorization: Bearer KEY', or OPENAI_API_KEY in the environment"},
	"save-result":                   {"out", "vLLM's result file is drip's --json > result.json (the summary) or --out runs.jsonl (every stream)"},
	"result-filename":               {"out", "vLLM's result file is drip's --json > result.json (the summary) or --out runs.jsonl (every stream)"},
	"artifact-dir":                  {"out", "AIPerf's artifacts are drip's --out runs.jsonl (every stream), --csv and --html"},
	"goodput":                       {"slo", "--goodput is drip's --slo 'ttft<500ms,gap.p99<250ms' (goodput in the summary)"},
	"ignore-eos":                    {"extra-body", "vLLM's --ignore-eos is a body field: --extra-body '{\"ignore_eos\":true}'"},
	"extra-inputs":                  {"extra-body", "AIPerf's --extra-inputs is drip's --extra-body '{\"name\":value}'"},
	"tokenizer":                     {"output-tokens", "drip needs no tokenizer: it counts the server's usage report, else one token a content frame"},
	"synthetic-input-tokens-stddev": {"input-tokens", "drip takes the spread with the mean: --input-tokens 512±64"},
	"warmup-request-count":          {"warmup", "AIPerf's --warmup-request-count is drip's --warmup N"},
}

// shortPointers are other tools' one-letter flags drip does not take.
var shortPointers = map[string]pointer{
	"X": pointers["request"],
	"z": {"duration", "oha's -z is drip's --duration (--duration 10s)"},
	"u": {"format", "-u is AIPerf's --url (drip's argument: drip run URL) or k6's --vus (drip's --concurrency)"},
	"i": {"runs", "k6's -i/--iterations is drip's --runs"},
	"o": {"out", "curl's -o is drip's --out FILE (every stream's record) or --json > FILE (the summary)"},
	"s": {"quiet", "curl's -s: drip's -q/--quiet prints the figures alone"},
}

// Aliases is a pflag normalize func that takes other tools' names for
// drip run's flags as drip's own (fs.SetNormalizeFunc(cliconv.Aliases)).
func Aliases(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := aliases[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// pointFlag is the line that says what drip calls another tool's flag
// the user typed, "" when drip has no pointer for it in fs's command.
func pointFlag(fs *pflag.FlagSet, ne *pflag.NotExistError) string {
	p, ok := pointers[flagName(ne.GetSpecifiedName())]
	if short := ne.GetSpecifiedShortnames(); short != "" {
		p, ok = shortPointers[short]
	}
	if !ok || fs.Lookup(p.flag) == nil {
		return ""
	}
	return "\n" + p.say
}
