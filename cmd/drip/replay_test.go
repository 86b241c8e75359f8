package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// writeRecording writes a recording of one streamed request per path, as
// drip record would, for drip replay to send again.
func writeRecording(t *testing.T, paths ...string) string {
	t.Helper()
	var recs []*record.Record
	for i, p := range paths {
		x := &record.Exchange{Method: "POST", Path: p, Streamed: true, ContentType: "text/event-stream"}
		x.SetBody([]byte(`{"model":"m","stream":true}`))
		recs = append(recs, &record.Record{V: record.RecordVersion, Seq: i, Phase: record.PhaseMeasure, Format: "openai-chat", Model: "m", Status: record.StatusComplete, Exchange: x})
	}
	return tempRecords(t, recs)
}

// tempRecords writes recs to a record file as drip merge writes one, and
// returns its path.
func tempRecords(t *testing.T, recs []*record.Record) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := pipeline.WriteRecords(path, recs); err != nil {
		t.Fatal(err)
	}
	return path
}

// A server under test that fails every replayed stream is exit 3, the
// failures named by class, whatever the gates say; a key it echoes back is
// in no line drip prints.
func TestReplayAgainstAServerThatFailsEverything(t *testing.T) {
	t.Parallel()
	const key = "sk-REPLAY-H-SECRET-1"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "Incorrect API key provided: " + r.Header.Get("Authorization")}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(msg)
	}))
	defer echo.Close()
	rec := writeRecording(t, "/v1/chat/completions", "/v1/chat/completions")
	for _, extra := range [][]string{nil, {"--fail-if", "failed > 0"}, {"--json"}, {"--markdown"}} {
		args := append([]string{"replay", rec, "--against", echo.URL, "-H", "Authorization: Bearer " + key, "--no-tui"}, extra...)
		code, stdout, stderr := drip(t, args...)
		if code != exitCannotGo || !strings.Contains(stderr, "no replayed stream completed (2 replayed: http_4xx ×2)") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant 3 naming the failures", extra, code, stderr)
		}
		if strings.Contains(stdout+stderr, "SECRET") || !strings.Contains(stderr, "Incorrect API key provided: ****") {
			t.Errorf("%v: the output shows the key, or not the server's message masked:\n%s\n%s", extra, stderr, stdout)
		}
	}
}

// Bad input to drip record, replay and export: a clear one-line error that
// names the flag or the file, exit 2 for a usage error, 3 for input that
// cannot be used or a server that cannot be reached, and no panic.
func TestRecordReplayExportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"empty.jsonl": "", "truncated.jsonl": `{"v":1,"run_id":"r","seq":0,"exchange":{"meth`, "binary.jsonl": "\x00\xff\xfe\x01garbage"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runs := filepath.Join(dir, "runs.jsonl") // drip run's records: no exchange to replay
	os.WriteFile(runs, []byte(`{"v":1,"run_id":"r","seq":0,"phase":"measure","status":"complete","format":"openai-chat"}`+"\n"), 0o600)
	rec := writeRecording(t, "/v1/chat/completions")
	// A stream whose server sent no usage: AIPerf refuses a trace line
	// without input_length, so the export has nothing to write.
	noUsage := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true}
	noUsage.SetResponse([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	unsized := tempRecords(t, []*record.Record{{V: record.RecordVersion, Phase: record.PhaseMeasure, Exchange: noUsage, DurationMS: 182,
		Frames: []record.Frame{{TMS: 180, Kind: record.KindContent, Text: "hi"}, {TMS: 181, Kind: record.KindEnd}}}})
	passthrough := tempRecords(t, []*record.Record{{V: record.RecordVersion, Phase: record.PhasePassthrough, Status: record.StatusComplete,
		Exchange: &record.Exchange{Method: "GET", Path: "/v1/models"}}})
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	against := []string{"--against", dead.URL}
	kept := filepath.Join(dir, "kept.jsonl") // an earlier recording a failed drip record must leave alone
	os.WriteFile(kept, []byte("{}\n"), 0o600)
	emptyTrace := filepath.Join(dir, "trace.jsonl") // an export with no line to write must not create it
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{append([]string{"replay", filepath.Join(dir, "missing.jsonl")}, against...), exitUsage, "missing.jsonl: no such file"},
		{append([]string{"replay", filepath.Join(dir, "empty.jsonl")}, against...), exitCannotGo, "empty.jsonl: no records"},
		{append([]string{"replay", filepath.Join(dir, "truncated.jsonl")}, against...), exitCannotGo, "truncated.jsonl: no records"},
		{append([]string{"replay", filepath.Join(dir, "binary.jsonl")}, against...), exitCannotGo, "binary.jsonl: line 1"},
		{append([]string{"replay", runs}, against...), exitUsage, "no recorded stream to replay, only 1 record without an exchange (not made by drip record)\n"},
		{append([]string{"replay", passthrough}, against...), exitUsage, "no recorded stream to replay, only 1 exchange that did not stream"},
		{[]string{"replay", rec}, exitUsage, "--against is required"},
		{[]string{"replay", rec, "--against", "localhost:8000"}, exitUsage, `--against "localhost:8000": no scheme: want http(s)://host[:port][/path], e.g. http://localhost:8000`},
		{append([]string{"replay", rec, "--no-tui"}, against...), exitCannotGo, "no replayed stream completed (1 replayed: refused ×1)"},
		{append([]string{"replay", rec, "--rate", "-2"}, against...), exitUsage, "--rate -2"},
		{append([]string{"replay", rec, "--rate", "fast"}, against...), exitUsage, `"--rate" flag`},
		{append([]string{"replay", rec, "--concurrency", "-1"}, against...), exitUsage, "--concurrency -1"},
		{append([]string{"replay", rec, "--concurrency", "2", "--rate", "5"}, against...), exitUsage, "pick one"},
		{append([]string{"replay", rec, "--duration", "-1s"}, against...), exitUsage, "--duration -1s"},
		{append([]string{"replay", rec, "--duration", "10"}, against...), exitUsage, `"--duration" flag`},
		{append([]string{"replay", rec, "--duration", "2s", "--no-tui"}, against...), exitUsage, "--duration 2s repeats the recorded spacing, but the recording (1 stream) spans 0 ms: give --rate or --concurrency"},
		{[]string{"record"}, exitUsage, "--upstream is required"},
		{[]string{"record", "--upstream", "api.openai.com"}, exitUsage, `--upstream "api.openai.com": no scheme: want http(s)://host[:port][/path], e.g. https://api.openai.com`},
		{[]string{"record", "--upstream", "http://u:sk-SECRET@/v1"}, exitUsage, `--upstream "http:///v1"`},
		{[]string{"record", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:99999"}, exitUsage, `--listen "127.0.0.1:99999": want host:port`},
		{[]string{"record", "--upstream", "http://127.0.0.1:1", "--listen", busy.Addr().String(), "--out", kept, "--force"}, exitCannotGo, "--listen " + busy.Addr().String() + ": bind: address already in use"},
		{[]string{"record", "--upstream", "http://127.0.0.1:1", "--stall", "0s"}, exitUsage, "--stall 0s: must be positive"},
		{[]string{"export", "aiperf", filepath.Join(dir, "empty.jsonl")}, exitCannotGo, "empty.jsonl: no records"},
		{[]string{"export", "aiperf", runs}, exitUsage, "no recorded streams"},
		{[]string{"export", "aiperf", unsized, "--out", emptyTrace}, exitCannotGo, "left out 1 stream whose server reported no prompt tokens"},
		{[]string{"fixtures", "serve", "--from", filepath.Join(dir, "missing.jsonl")}, exitUsage, "missing.jsonl: no such file"},
		{[]string{"fixtures", "serve", "--from", runs}, exitUsage, "no recorded exchanges: the file needs records written by drip record"},
		{[]string{"fixtures", "serve", "--from", filepath.Join(dir, "empty.jsonl")}, exitCannotGo, "empty.jsonl: no records"},
		{[]string{"fixtures", "serve", "--from", rec, "--addr", busy.Addr().String()}, exitCannotGo, "address already in use"},
	} {
		code, _, stderr := drip(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.says) || strings.Contains(stderr, "panic") || strings.Contains(stderr, "SECRET") {
			t.Errorf("drip %s: exit %d, stderr:\n%s\nwant %d saying %q", strings.Join(c.args, " "), code, stderr, c.code, c.says)
		}
		if c.code == exitUsage && strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("drip %s: a usage error of more than one line (and its see --help):\n%s", strings.Join(c.args, " "), stderr)
		}
	}
	if b, _ := os.ReadFile(kept); string(b) != "{}\n" {
		t.Errorf("a drip record that could not listen truncated its --out file: %q", b)
	}
	if _, err := os.Stat(emptyTrace); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("drip export aiperf with an empty trace left its --out file behind (stat: %v)", err)
	}
	if _, err := os.Stat("rec.jsonl"); err == nil {
		t.Error("a drip record that failed wrote rec.jsonl into the working directory")
	}
}

// drip replay sends the recording to another server by design: the target
// is the one workload difference it does not warn of. Another one (the
// recording's drip version here) is still warned, in text and in --json.
func TestReplayWarnsOfEveryWorkloadDifferenceButTheTarget(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	var recs []*record.Record
	for i := range 2 {
		x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, ContentType: "text/event-stream"}
		x.SetBody([]byte(`{"model":"steady","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		recs = append(recs, &record.Record{V: record.RecordVersion, Seq: i, Phase: record.PhaseMeasure, PromptID: probe.DefaultPromptID, Target: "http://upstream.invalid/v1/chat/completions", Format: "openai-chat", Model: "steady",
			Status: record.StatusComplete, StallMS: 250, Workload: &record.RecordWorkload{Concurrency: 1, Version: "0.9-recorded"}, Exchange: x})
	}
	path := tempRecords(t, recs)
	code, stdout, stderr := drip(t, "replay", path, "--against", srv.URL, "--no-tui")
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "workload differs") || !strings.Contains(stdout, "drip version") || !strings.Contains(stdout, "0.9-recorded") {
		t.Errorf("the drip version difference is not warned of:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "target ") {
			t.Errorf("the target difference is warned of: %q\n%s", line, stdout)
		}
	}
	_, js, _ := drip(t, "replay", path, "--against", srv.URL, "--json")
	var out struct {
		Differences []struct{ Setting string } `json:"workload_differences"`
	}
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatalf("--json: %v\n%.500s", err, js)
	}
	var settings []string
	for _, d := range out.Differences {
		settings = append(settings, d.Setting)
	}
	if !slices.Contains(settings, "drip version") || slices.Contains(settings, "target") {
		t.Errorf("--json workload differences %q; want drip version and not target", settings)
	}
}

// drip record's default --out, rec.jsonl, is never overwritten: a second
// drip record in the same directory would have truncated the first's
// traffic. --force replaces it, as it does drip run's --out.
func TestRecordKeepsAnEarlierRecordingUnderTheDefaultName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const earlier = "{\"v\":1}\n"
	if err := os.WriteFile("rec.jsonl", []byte(earlier), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := drip(t, "record", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(stderr, "--out rec.jsonl: the file exists (8 bytes) and drip replaces none unasked: name another file, or add --force to replace it") {
		t.Errorf("exit %d, stderr:\n%s\nwant 2 saying rec.jsonl holds an earlier recording", code, stderr)
	}
	if b, _ := os.ReadFile("rec.jsonl"); string(b) != earlier {
		t.Errorf("rec.jsonl now holds %q, want the earlier recording %q", b, earlier)
	}
}

// A recording made through a base URL ending /v1 replayed against …/v1
// goes to /v1/v1/: stderr says where it is sent and gives the origin to
// use instead. Against the origin, or a path the recorded ones do not
// start with, it says nothing.
func TestReplayWarnsWhenAgainstRepeatsTheRecordedBasePath(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	rec := writeRecording(t, "/v1/chat/completions", "/v1/chat/completions?x=1")
	_, _, stderr := drip(t, "replay", rec, "--against", srv.URL+"/v1/", "--no-tui")
	want := "drip replay: warning: every recorded path already starts with --against's path, so the first is sent to " +
		srv.URL + "/v1/v1/chat/completions; give the origin, --against " + srv.URL + ", to send the recorded paths as they were\n"
	if !strings.Contains(stderr, want) {
		t.Errorf("replay against …/v1 of /v1 paths, stderr:\n%s\nwant\n%s", stderr, want)
	}
	for _, against := range []string{srv.URL, srv.URL + "/v2", srv.URL + "/v"} {
		if _, _, stderr := drip(t, "replay", rec, "--against", against, "--no-tui"); strings.Contains(stderr, "warning") {
			t.Errorf("replay against %s warned:\n%s", against, stderr)
		}
	}
}

// A crafted recording whose streams DELETE a file and PUT an admin key
// sends neither with the environment's key: stderr says what was left out
// and how to send it, and the POST alone is replayed. --allow-method
// sends the one it names; a name that is no method is a usage error.
func TestReplaySendsOnlyPOSTAndGETUnlessAllowed(t *testing.T) {
	var (
		mu   sync.Mutex
		sent []string
	)
	fx := fixtures.NewServer()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.Method+" "+r.URL.Path)
		mu.Unlock()
		r.Method = http.MethodPost // the fixture answers POSTs
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-REPLAY-METHOD-0123")
	var recs []*record.Record
	for i, m := range []string{"POST", "DELETE", "PUT"} {
		path := map[string]string{"POST": "/v1/chat/completions", "DELETE": "/v1/files/file-1", "PUT": "/v1/organization/admin_api_keys"}[m]
		x := &record.Exchange{Method: m, Path: path, Streamed: true, ContentType: "text/event-stream"}
		x.SetBody([]byte(`{"model":"steady","stream":true}`))
		recs = append(recs, &record.Record{V: record.RecordVersion, Seq: i, Phase: record.PhaseMeasure, Format: "openai-chat", Model: "steady", Status: record.StatusComplete, Exchange: x})
	}
	rec := tempRecords(t, recs)
	took := func() []string { // and forget
		mu.Lock()
		defer mu.Unlock()
		s := sent
		sent = nil
		return s
	}
	code, _, stderr := drip(t, "replay", rec, "--against", srv.URL, "--no-tui")
	if sent := took(); code != exitOK || !slices.Equal(sent, []string{"POST /v1/chat/completions"}) ||
		!strings.Contains(stderr, "not replayed: 1 stream sent with DELETE (only POST and GET are replayed: --allow-method DELETE sends it), 1 stream sent with PUT") {
		t.Errorf("exit %d, sent %q, stderr:\n%s\nwant 0, the POST alone and the DELETE and PUT said", code, sent, stderr)
	}
	code, _, stderr = drip(t, "replay", rec, "--against", srv.URL, "--no-tui", "--allow-method", "put")
	if sent := took(); code != exitOK || !slices.Contains(sent, "PUT /v1/organization/admin_api_keys") || slices.Contains(sent, "DELETE /v1/files/file-1") {
		t.Errorf("--allow-method put: exit %d, sent %q\n%s", code, sent, stderr)
	}
	if code, _, stderr := drip(t, "replay", rec, "--against", srv.URL, "--allow-method", "PUT X"); code != exitUsage || !strings.Contains(stderr, `--allow-method "PUT X"`) {
		t.Errorf("--allow-method 'PUT X': exit %d %q; want 2 naming it", code, stderr)
	}
}

// A recording whose exchange holds a header name that is no HTTP token
// (no drip record writes one) is refused naming the header, nothing sent:
// each stream failed as "reset", a transport error that named nothing.
func TestReplayRefusesARecordedHeaderNameThatIsNoToken(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, Header: map[string][]string{"X Trace Id": {"7"}}}
	x.SetBody([]byte(`{"model":"m","stream":true}`))
	rec := tempRecords(t, []*record.Record{{V: record.RecordVersion, Phase: record.PhaseMeasure, Format: "openai-chat", Status: record.StatusComplete, Exchange: x}})
	code, _, stderr := drip(t, "replay", rec, "--against", srv.URL, "--no-tui")
	if want := `line 1: exchange header "X Trace Id": not a valid header name`; code != exitCannotGo || !strings.Contains(stderr, want) || hits.Load() != 0 {
		t.Errorf("exit %d, %d requests, stderr %q; want 3 saying %q and none sent", code, hits.Load(), stderr, want)
	}
}

// A replay paced by a schedule (the recorded spacing, or --rate) says on
// stderr how closely it kept to it, as run's open loop does in its
// report; a closed loop (--concurrency) has no schedule and says nothing.
func TestReplaySaysItsScheduleLag(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	rec := writeRecording(t, "/v1/chat/completions", "/v1/chat/completions")
	for _, c := range []struct {
		flags []string
		says  bool
	}{{nil, true}, {[]string{"--rate", "50"}, true}, {[]string{"--concurrency", "2"}, false}} {
		_, _, stderr := drip(t, append([]string{"replay", rec, "--against", srv.URL, "--no-tui"}, c.flags...)...)
		said := regexp.MustCompile(`drip replay: schedule lag p50 \S+ m?s p99 \S+ m?s max \S+ m?s \(n=2\), bound p99 10 ms: (within|OVER: client-limited[^·]*) · 0 not admitted \(over 256 in flight\)\n`).MatchString(stderr)
		if said != c.says {
			t.Errorf("replay %v: said the schedule lag %v, want %v; stderr:\n%s", c.flags, said, c.says, stderr)
		}
	}
}

// drip replay --duration without --rate cycles through the recorded
// spacing until the duration has passed: two streams recorded 100 ms apart
// (a span of 200 ms) are sent three times in 300 ms, and nothing panics.
func TestReplayForADurationCyclesThroughTheRecording(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	var recs []*record.Record
	for i, off := range []float64{0, 100} {
		x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, ContentType: "text/event-stream"}
		x.SetBody([]byte(`{"model":"m","stream":true}`))
		recs = append(recs, &record.Record{V: record.RecordVersion, Seq: i, Phase: record.PhaseMeasure, Format: "openai-chat", Model: "m", Status: record.StatusComplete, RunOffsetMS: off, Exchange: x})
	}
	code, _, stderr := drip(t, "replay", tempRecords(t, recs), "--against", srv.URL, "--duration", "300ms", "--no-tui")
	if code != exitOK || strings.Contains(stderr, "panic") || !strings.Contains(stderr, "(n=3)") {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and 3 arrivals", code, stderr)
	}
}
