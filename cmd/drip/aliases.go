package main

import "github.com/spf13/pflag"

// aliasHelp is the help's paragraph on the names other tools use.
const aliasHelp = `Flags from other tools: --request-rate (vLLM, AIPerf) is --rate,
--max-concurrency (vLLM) and --vus (k6) are --concurrency, --num-prompts
(vLLM), --request-count (AIPerf) and --iterations (k6) are --runs,
--random-input-len and --random-output-len (vLLM) and
--synthetic-input-tokens-mean and --output-tokens-mean (AIPerf) are
--input-tokens and --output-tokens, --random-seed (AIPerf) is --seed and
curl's --data-raw is -d. curl's -N and AIPerf's --streaming are accepted
and change nothing: drip streams every request and reads it unbuffered.
-k/--insecure, --cacert and --cert/--key are curl's TLS flags. Other
tools' flags drip spells another way (AIPerf's URL and endpoint type,
curl's method and time limit, …) get a line that says drip's.`

// registerNoBuffer accepts curl's -N and AIPerf's --streaming, which
// change nothing, since drip streams every request and never buffers one.
func registerNoBuffer(fs *pflag.FlagSet) {
	fs.BoolP("no-buffer", "N", false, "curl's flag, accepted; drip reads every stream unbuffered")
	fs.Bool("streaming", false, "AIPerf's flag, accepted; drip streams every request")
	// A flag that does nothing does not belong in the list.
	_ = fs.MarkHidden("no-buffer")
	_ = fs.MarkHidden("streaming")
}
