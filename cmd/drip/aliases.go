package main

import "github.com/spf13/pflag"

// aliasHelp is the help's paragraph on the names other tools use.
const aliasHelp = `Flags from other tools: --request-rate (vLLM, AIPerf) is --rate,
--max-concurrency (vLLM) is --concurrency, --num-prompts (vLLM) is --runs,
and curl's -N (--no-buffer) is accepted and changes nothing: drip reads
every stream unbuffered. -k/--insecure, --cacert and --cert/--key are
curl's TLS flags.`

// registerNoBuffer accepts curl's -N, which changes nothing: drip never
// buffers a stream.
func registerNoBuffer(fs *pflag.FlagSet) {
	fs.BoolP("no-buffer", "N", false, "curl's flag, accepted; drip reads every stream unbuffered")
	_ = fs.MarkHidden("no-buffer") // a flag that does nothing does not belong in the list
}
