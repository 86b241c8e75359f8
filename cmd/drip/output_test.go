package main

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
)

func TestOutputSaysWhatItDid(t *testing.T) { synctest.Test(t, testOutputSaysWhatItDid) }

func testOutputSaysWhatItDid(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	auto := srv.URL + "/some/gateway/path?scenario=steady" // a path no format claims: auto

	code, stdout, _ := drip(t, "run", auto, "--runs", "1", "--json")
	if s := jsonSummary(t, stdout); code != exitOK || s.Workload.Format != "openai-chat" {
		t.Errorf("auto: exit %d, workload.format %q; want the format the response was decoded as, openai-chat", code, s.Workload.Format)
	}
	code, stdout, _ = drip(t, "run", auto, "--runs", "1")
	if head, _, _ := strings.Cut(stdout, "\n"); code != exitOK || !strings.HasSuffix(head, "· format openai-chat") {
		t.Errorf("auto, text report: exit %d, first line %q; want it to name openai-chat", code, head)
	}

	code, stdout, _ = drip(t, "run", srv.URL, srv.URL+"/v1/chat/completions", "-m", "steady", "--runs", "1")
	if n := strings.Count(stdout, "conventions:"); code != exitOK || n != 1 {
		t.Errorf("two targets: exit %d, the conventions block %d times; want once", code, n)
	}

	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "2", "-q", "--fail-if", "failed > 0")
	for _, want := range []string{"2 completed · 0 failed", "\nttft ", "throughput", "ok   failed > 0"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-q: no %q in\n%s", want, stdout)
		}
	}
	if code != exitOK || strings.Contains(stdout, "conventions:") || strings.Contains(stdout, "drip ·") || stderr != "" {
		t.Errorf("-q: exit %d; want the figures alone on stdout and nothing on stderr, got stderr %q and\n%s", code, stderr, stdout)
	}
}

func TestUnwritableOutRefusedBeforeSending(t *testing.T) { synctest.Test(t, testUnwritableOut) }

func testUnwritableOut(t *testing.T) {
	var requests atomic.Int32
	fx := fixtures.NewServer()
	srv := serveInMemory(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fx.ServeHTTP(w, r)
	}))
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", srv.URL, "-m", "steady", "--runs", "1", "--out", dir + "/nodir/x.jsonl"},
		{"run", srv.URL, "-m", "steady", "--runs", "1", "--csv", dir + "/nodir/x.csv"},
		{"record", "--upstream", srv.URL, "--listen", "127.0.0.1:0", "--out", dir + "/nodir/rec.jsonl"},
	} {
		code, _, stderr := drip(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "does not exist: create it first (mkdir -p "+dir+"/nodir)") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and what to create", args, code, stderr)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server; want none before the refusal", n)
	}
}

func TestFormatMismatchNamesWhatTheBytesLookLike(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		out := t.TempDir() + "/rec.jsonl"
		code, _, stderr := drip(t, "run", srv.URL+"/v1/chat/completions", "--format", "anthropic", "-m", "steady", "--runs", "1", "--out", out)
		recs := readRecords(t, out)
		want := "the stream looks like openai-chat, not anthropic: try --format openai-chat"
		if code != exitCannotGo || len(recs) != 1 || recs[0].Error == nil || !strings.Contains(recs[0].Error.Message, want) || !strings.Contains(stderr, want) {
			t.Fatalf("--format anthropic against an OpenAI stream: exit %d, records %+v, stderr %s; want class decode saying %q", code, recs, stderr, want)
		}
		code, _, _ = drip(t, "run", srv.URL+"/v1/chat/completions", "--format", "openai-chat", "-m", "steady", "--runs", "1", "--out", out, "--force")
		if recs = readRecords(t, out); code != exitOK || recs[0].Error != nil {
			t.Errorf("the right format: exit %d, error %+v", code, recs[0].Error)
		}
	})
}
