package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/testenv"
)

// A script written for vLLM's or AIPerf's JSON reads drip's --names
// output unchanged: the jq lines of their docs give numbers.
func TestNamesPutTheToolsKeysAtTheTop(t *testing.T) {
	jq := testenv.LookPath(t, "jq", "apt-get install jq")
	for tool, lines := range map[string][]string{
		"vllm":   {".median_ttft_ms", ".p99_itl_ms"},
		"aiperf": {".time_to_first_token.avg", ".request_throughput.avg"},
	} {
		var stdout, stderr string
		var code int
		synctest.Test(t, func(t *testing.T) {
			srv := serveInMemory(t, fixtures.NewServer())
			code, stdout, stderr = drip(t, "run", srv.URL, "-m", "steady", "-n", "3", "--json", "--names", tool)
		})
		if code != exitOK {
			t.Fatalf("--names %s: exit %d\n%s", tool, code, stderr)
		}
		for _, line := range append(lines, ".streams.completed") {
			cmd := exec.Command(jq, line)
			cmd.Stdin = strings.NewReader(stdout)
			out, err := cmd.Output()
			if v, perr := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err != nil || perr != nil || v <= 0 {
				t.Errorf("--names %s: jq %s gives %q (%v), want a number", tool, line, out, err)
			}
		}
	}
}
