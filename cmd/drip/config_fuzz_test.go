package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/pipeline"
)

// FuzzConfig: whatever a --config file holds, drip run either takes its
// targets or refuses it as a usage error naming the file, without a
// panic. Seeds in testdata/fuzz/FuzzConfig.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"targets = [\"http://localhost:8000\"]\nmodel = \"m\"\n[headers]\nAuthorization = \"Bearer ${HOME}\"\n[workload]\nruns = 3\nconcurrency = [1, 2]\n[gates]\nfail-if = [\"ttft.p95 > 800ms\"]\n",
		"workload = { runs = [1, 3] }\n", "workload.runs = 3\ntargets = \"http://x\"\n", "[headers]\n\"X-A: B\" = \"v\"\n",
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "drip.toml")
	f.Fuzz(func(t *testing.T, text []byte) {
		if err := os.WriteFile(path, text, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := newRunCmd()
		cmd.SetContext(t.Context())
		targets, err := applyConfig(cmd, path, nil)
		var ee *pipeline.ExitError
		switch {
		case err == nil && len(targets) == 0:
			t.Fatal("a config taken with no targets")
		case err != nil && (!errors.As(err, &ee) || ee.Code != pipeline.ExitUsage || !strings.Contains(err.Error(), path)):
			t.Fatalf("error %q: want a usage error naming the file", err)
		}
	})
}
