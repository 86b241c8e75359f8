package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
)

// docsConfigRun is a documented offline run of a doc's drip.toml: an
// environment variable the file's headers read, the command, and the
// exit its comment states.
var docsConfigRun = regexp.MustCompile(`(?m)^([A-Z_]+)=(\S+) drip run --config drip\.toml http://127\.0\.0\.1:8089 ([^#\n]*?)\s*#\s*exits (\d)`)

// The drip.toml of README.md and docs/ci.md runs offline as each doc
// says: the documented lines (a URL and -m on the command line over the
// file's) against the fixture server exit with the codes their comments
// state, and without the variable the file's header reads the file is
// refused (exit 2). TestDocumentedCommandsRunOffline runs a stock
// drip.toml instead, so it cannot see the docs' own file. The fixture
// server is served in memory on the bubble's clock: the files' gates
// (goodput over ttft<800ms) are not a loaded machine's to trip.
func TestDocumentedConfigFilesRunOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented config files against the fixture server")
	}
	synctest.Test(t, testDocumentedConfigFilesRunOffline)
}

func testDocumentedConfigFilesRunOffline(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	for _, doc := range []string{"../../README.md", "../../docs/ci.md"} {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(raw), "```toml\n")
		toml, _, ok := strings.Cut(rest, "```")
		if !ok {
			t.Fatalf("%s: no drip.toml block", doc)
		}
		path := filepath.Join(t.TempDir(), "drip.toml")
		if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
		runs := docsConfigRun.FindAllStringSubmatch(string(raw), -1)
		if len(runs) < 2 {
			t.Fatalf("%s documents %d offline runs of its drip.toml, want the steady one and the one as written", doc, len(runs))
		}
		for _, m := range runs {
			args := append([]string{"run", "--config", path, srv.URL, "--no-tui"}, strings.Fields(m[3])...)
			want, _ := strconv.Atoi(m[4])
			t.Setenv(m[1], m[2])
			if code, stdout, stderr := drip(t, args...); code != want {
				t.Errorf("%s: %s=%s drip %s: exit %d, the doc says %d\n%s%s", doc, m[1], m[2], strings.Join(args, " "), code, want, stdout, stderr)
			}
			os.Unsetenv(m[1])
			if code, _, stderr := drip(t, args...); code != exitUsage || !strings.Contains(stderr, m[1]) {
				t.Errorf("%s: without %s: exit %d %q, the doc says 2 naming it", doc, m[1], code, stderr)
			}
		}
	}
}
