package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/pipeline"
)

// Two hosts run one workload against one endpoint; the second's transport
// is slower (the fixture spaces its frames 15ms further apart, time to
// first token untouched). Merged and grouped by host, the comparison says
// the gaps moved, TTFT did not, and reads it as the transport.
func TestMergeAndCompareByHostSeesTheTransport(t *testing.T) {
	synctest.Test(t, testMergeAndCompareByHostSeesTheTransport)
}

func testMergeAndCompareByHostSeesTheTransport(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	a, b, all := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "all.jsonl")
	common := []string{"run", srv.URL, "-m", "steady", "--runs", "8", "--concurrency", "4", "--label", "region=eu", "--no-tui"}
	if code, _, stderr := drip(t, append(common, "--host-label", "host-a", "--out", a)...); code != exitOK {
		t.Fatalf("host a: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := drip(t, append(common, "--host-label", "host-b", "-H", "Frame-Delay: 15ms", "--out", b)...); code != exitOK {
		t.Fatalf("host b: exit %d\n%s", code, stderr)
	}
	for _, r := range readRecords(t, b) {
		if r.Host != "host-b" || r.Labels["region"] != "eu" {
			t.Fatalf("record host %q labels %v, want host-b and region=eu", r.Host, r.Labels)
		}
	}
	code, _, stderr := drip(t, "merge", a, b, "--out", all)
	if code != exitOK || !strings.Contains(stderr, "merged 16 records from 2 files (2 hosts: host-a, host-b)") {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if n := len(readRecords(t, all)); n != 16 {
		t.Fatalf("merged file has %d records, want 16", n)
	}
	code, stdout, stderr := drip(t, "compare", "--by", "host", all, "--no-tui")
	if code != exitOK {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"A  host=host-a", "B  host=host-b", "ttft        held", "gap         moved", "reading: transport:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare --by host lacks %q:\n%s", want, stdout)
		}
	}
}

func TestMergeRefusals(t *testing.T) { synctest.Test(t, testMergeRefusals) }

func testMergeRefusals(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for path, model := range map[string]string{a: "steady", b: "buffered-burst"} {
		if code, _, stderr := drip(t, "run", srv.URL, "-m", model, "--runs", "1", "--no-tui", "--out", path); code != exitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", a, b, "--out", filepath.Join(dir, "x.jsonl")}, "model: " + a + " = steady; " + b + " = buffered-burst"},
		{[]string{"merge", a, a, "--out", filepath.Join(dir, "x.jsonl")}, "the same stream twice"},
		{[]string{"merge", a}, "--out"},
		{[]string{"compare", a}, "two or more record files"},
		{[]string{"compare", "--by", "nope", a, b}, "no record has that field"},
		{[]string{"run", srv.URL, "--label", "host=x"}, "reserved"},
		{[]string{"run", srv.URL, "--label", "9x=1"}, "letters, digits"},
		{[]string{"run", srv.URL, "--label", "novalue"}, "want k=v"},
		{[]string{"run", srv.URL, "--linger", "5s"}, "add --metrics-addr"},
		{[]string{"run", srv.URL, "--otlp-traces"}, "add --otlp URL"},
	} {
		code, _, stderr := drip(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.jsonl")); err == nil {
		t.Error("a refused merge wrote its --out file")
	}
}

// Files written by two drip versions merge, and drip says which; the
// merged run reports both versions, not the first record's alone.
func TestMergeSaysTheDripVersions(t *testing.T) { synctest.Test(t, testMergeSaysTheDripVersions) }

func testMergeSaysTheDripVersions(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	a, b, older, all := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "older.jsonl"), filepath.Join(dir, "all.jsonl")
	for path, host := range map[string]string{a: "host-a", b: "host-b"} {
		if code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "2", "--no-tui", "--host-label", host, "--out", path); code != exitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	}
	recs := readRecords(t, b)
	for _, r := range recs {
		r.Workload.Version = "v0.9.0"
	}
	if err := pipeline.WriteRecords(older, recs); err != nil {
		t.Fatal(err)
	}
	v := readRecords(t, a)[0].Workload.Version
	code, _, stderr := drip(t, "merge", a, older, "--out", all)
	if want := "drip: note: the files differ in drip version (" + a + " = " + v + "; " + older + " = v0.9.0)"; code != exitOK || !strings.Contains(stderr, want) {
		t.Errorf("merge: exit %d, stderr %q; want 0 and %q", code, stderr, want)
	}
	if got, want := compare.WorkloadOf(readRecords(t, all)).Version, v+", v0.9.0"; got != want {
		t.Errorf("the merged run's drip version %q, want %q", got, want)
	}
	if _, _, stderr := drip(t, "merge", a, b, "--out", filepath.Join(dir, "same.jsonl")); strings.Contains(stderr, "note:") {
		t.Errorf("one version, yet a note: %s", stderr)
	}
}

// drip compare's and drip merge's --help state their exit codes, and the
// codes hold: a missing file is a usage error (2), a file without a
// record could not be read as a run (3).
func TestCompareAndMergeExitCodesAsTheirHelpSays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty, missing := filepath.Join(dir, "empty.jsonl"), filepath.Join(dir, "missing.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := recordFile("steady.jsonl")
	for _, cmd := range []string{"compare", "merge"} {
		_, help, _ := drip(t, cmd, "--help")
		if !strings.Contains(help, "Exit codes: 0 ") {
			t.Errorf("drip %s --help states no exit codes:\n%s", cmd, help)
		}
		for file, want := range map[string]int{missing: exitUsage, empty: exitCannotGo} {
			args := []string{cmd, base, file}
			if cmd == "merge" {
				args = append(args, "--out", filepath.Join(dir, "out.jsonl"))
			}
			if code, _, stderr := drip(t, args...); code != want {
				t.Errorf("drip %s with %s: exit %d, want %d\n%s", cmd, filepath.Base(file), code, want, stderr)
			}
		}
	}
}

// A host whose every stream failed is merged and named on stderr (the
// merged counts alone would hide it); an empty host file is refused with
// what to do; the merged run's throughput says it lays the hosts' runs
// over each other.
func TestMergeNamesAHostThatSentNothingGood(t *testing.T) {
	synctest.Test(t, testMergeNamesAHostThatSentNothingGood)
}

func testMergeNamesAHostThatSentNothingGood(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	good, bad, empty, all := filepath.Join(dir, "good.jsonl"), filepath.Join(dir, "bad.jsonl"), filepath.Join(dir, "empty.jsonl"), filepath.Join(dir, "all.jsonl")
	for path, timeout := range map[string]string{good: "30s", bad: "100ms"} {
		drip(t, "run", srv.URL, "-m", "steady", "--runs", "2", "--no-tui", "--timeout", timeout, "--host-label", filepath.Base(path), "--out", path)
	}
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := drip(t, "merge", good, bad, "--out", all)
	if want := "drip: note: " + bad + ": no measured stream completed: 2 attempted, 2 failed (timeout_total 2)"; code != exitOK || !strings.Contains(stderr, want) || strings.Contains(stderr, good+": no") {
		t.Errorf("merge: exit %d, stderr %q; want 0 and %q", code, stderr, want)
	}
	if _, stdout, _ := drip(t, "view", all, "--no-tui"); !strings.Contains(strings.Join(strings.Fields(stdout), " "), "the window lays 2 runs over each other") {
		t.Errorf("the merged run's throughput does not say it lays the runs over each other:\n%s", stdout)
	}
	code, _, stderr = drip(t, "merge", good, empty, "--out", filepath.Join(dir, "x.jsonl"))
	if code != exitCannotGo || !strings.Contains(stderr, empty+": no records: a host that recorded nothing; leave the file out to merge the others") {
		t.Errorf("merge with an empty file: exit %d, stderr %q", code, stderr)
	}
}

// An OTLP receiver that rejects the push is heard on stderr, a line per
// error, each "drip: --otlp: …", and its error body reaches the terminal
// without its control sequences: gone, payload and all, not the inert
// ^[]0;owned^G that stderr's backstop would make of them.
func TestOTLPRejectionsArePrintedSafely(t *testing.T) {
	t.Parallel()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "{\"message\":\"rejected \x1b]0;owned\x07\x1b[31mred\"}")
	}))
	defer recv.Close()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "1", "--no-tui", "--otlp", recv.URL, "--otlp-traces")
	if code != exitOK || strings.Contains(stderr, "^[") || strings.Contains(stderr, "]0;owned") {
		t.Errorf("exit %d; stderr %q: want 0 and the receiver's control sequences removed", code, stderr)
	}
	var otlp []string
	for l := range strings.Lines(stderr) {
		if strings.Contains(l, "400 Bad Request") {
			otlp = append(otlp, l)
			if !strings.HasPrefix(l, "drip: --otlp: ") {
				t.Errorf("a receiver's error not said as drip's --otlp: %q", l)
			}
		}
	}
	if len(otlp) == 0 || !strings.Contains(stderr, "rejected") {
		t.Errorf("no line says the receiver rejected the push:\n%s", stderr)
	}
}

// A collector that echoes the credential drip sent it (from
// OTEL_EXPORTER_OTLP_HEADERS) in its error body, as sent or JSON-escaped,
// does not get it printed: every --otlp line masks the header's values.
func TestOTLPCollectorsEchoedCredentialIsMasked(t *testing.T) {
	const token = "sk-otel-9f8e/7d6c+5b4a"
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"bad credential `+got+`","raw":"`+strings.ReplaceAll(got, "/", `\/`)+`"}`)
	}))
	defer recv.Close()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20"+strings.NewReplacer("/", "%2F", "+", "%2B").Replace(token))
	code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "1", "--no-tui", "--otlp", recv.URL, "--otlp-traces")
	if code != exitOK || !strings.Contains(stderr, "401 Unauthorized") || !strings.Contains(stderr, "bad credential ****") ||
		strings.Contains(stderr, "9f8e") || strings.Contains(stderr, "5b4a") {
		t.Errorf("exit %d; stderr %q: want 0, the 401 said and the token masked", code, stderr)
	}
}

// A receiver that rejects with a 1 MiB HTML page (the exporter copies up
// to 4 MiB of it into its error) is a few bounded lines on stderr, not a
// line for each line of the page.
func TestOTLPRejectionWithALongBodyIsCutShort(t *testing.T) {
	t.Parallel()
	page := "<html>\n<body>\n" + strings.Repeat("<p>the receiver is not accepting pushes</p>\n", 1<<20/44) + "</body>\n</html>\n"
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, page)
	}))
	defer recv.Close()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "1", "--no-tui", "--otlp", recv.URL, "--otlp-traces")
	var otlp []string
	for l := range strings.Lines(stderr) {
		if strings.HasPrefix(l, "drip: --otlp: ") {
			otlp = append(otlp, l)
		}
	}
	bytes := 0
	for _, l := range otlp {
		bytes += len(l)
	}
	// Metrics and traces each fail, and the run's export errors are told.
	if code != exitOK || len(otlp) == 0 || len(otlp) > 3 || bytes > 3*400 || !strings.Contains(stderr, "400 Bad Request") {
		t.Errorf("exit %d; %d --otlp lines of %d bytes, want 0 and 1 to 3 lines under 1200 bytes naming the 400:\n%.4000s", code, len(otlp), bytes, stderr)
	}
}

// A --summaries file that opens but is no drip run --json summary (not
// JSON, "{}", a compare --json) is exit 3 naming the file, as a record
// file that does not parse; "{}" was a workload difference with target "".
func TestMergeSummariesRefusesWhatIsNoSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{"notjson.json": "not json", "empty-object.json": "{}", "compare.json": `{"v":1,"baseline":"A","runs":[]}`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := drip(t, "merge", "--summaries", path, path)
		if code != exitCannotGo || !strings.Contains(stderr, path+": not a drip run --json summary") {
			t.Errorf("%s: exit %d, stderr %q; want %d naming the file", name, code, stderr, exitCannotGo)
		}
	}
}

// merge --summaries says what it merged, as a merge of records does; with
// --out it printed nothing at all on success.
func TestMergeSummariesSaysWhatItMerged(t *testing.T) {
	synctest.Test(t, testMergeSummariesSaysWhatItMerged)
}

func testMergeSummariesSaysWhatItMerged(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	var paths []string
	for _, host := range []string{"host-a", "host-b"} {
		code, stdout, stderr := drip(t, "run", srv.URL, "-m", "fast", "--runs", "3", "--json", "--host-label", host)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s", host, code, stderr)
		}
		paths = append(paths, filepath.Join(dir, host+".json"))
		if err := os.WriteFile(paths[len(paths)-1], []byte(stdout), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := filepath.Join(dir, "all.json")
	code, stdout, stderr := drip(t, "merge", "--summaries", paths[0], paths[1], "--out", all)
	want := "drip: merged 2 summaries (6 streams, 2 hosts: host-a, host-b) into " + all
	if code != exitOK || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("merge --summaries --out: exit %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, want)
	}
}
