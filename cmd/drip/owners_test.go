package main

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// The tests of docs/owners.md's truth table that run drip against the
// fixture server: each condition, the verdict drip gives. They share the
// package's dial hook, so none runs in parallel.

// runSummary runs drip with args against a fresh fixture server on the
// in-memory network and returns its --json summary.
func runSummary(t *testing.T, args ...string) stats.Summary {
	t.Helper()
	srv := serveInMemory(t, fixtures.NewServer())
	code, stdout, stderr := drip(t, append([]string{"run", srv.URL, "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var s stats.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	return s
}

func shapes(s stats.Summary) []string {
	var out []string
	for _, d := range s.Diagnosis {
		out = append(out, d.Shape)
	}
	return out
}

// A pause on every 5th request is the server's, recurring: the first
// stream shows it but is not alone, so it is no cold start. With the
// pause only on the first of four streams, it is.
func TestOwnersPauseEveryFifthIsNotColdStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := runSummary(t, "-m", "every-fifth-slow", "--runs", "10")
		if got := shapes(s); slices.Contains(got, stats.ShapeColdStart) {
			t.Errorf("1st and 6th of 10 streams slow: diagnosis %v names a cold start", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		s := runSummary(t, "-m", "every-fifth-slow", "--runs", "4")
		if got := shapes(s); !slices.Contains(got, stats.ShapeColdStart) {
			t.Errorf("only the 1st of 4 streams slow: diagnosis %v, want cold-start", got)
		}
	})
}

// A body that is no stream is not_stream whatever picked the decoder: the
// URL's path, --format, or auto. The error says the content type and the
// body's first bytes.
func TestOwnersNotAStreamWhateverPickedTheDecoder(t *testing.T) {
	for _, tc := range []struct {
		scenario, path, ct, starts string
		args                       []string
	}{
		{"html-page", "/v1/chat/completions", "text/html", "<!DOCTYPE html>", nil},
		{"whole-json", "/v1/chat/completions", "application/json", "chatcmpl-whole", nil},
		{"sse-json-body", "/v1/chat/completions", "text/event-stream", "chatcmpl-whole", nil},
		{"sse-json-body", "/v1/chat/completions", "text/event-stream", "chatcmpl-whole", []string{"--format", "openai-chat"}},
		{"html-page", "/my/stream", "text/html", "<!DOCTYPE html>", []string{"--format", "openai-chat"}},
		{"whole-json", "/my/stream", "application/json", "chatcmpl-whole", nil},
		{"sse-json-body", "/my/stream", "text/event-stream", "chatcmpl-whole", nil},
	} {
		t.Run(tc.scenario+tc.path+strings.Join(tc.args, ""), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := serveInMemory(t, fixtures.NewServer())
				out := filepath.Join(t.TempDir(), "runs.jsonl")
				args := append([]string{"run", srv.URL + tc.path, "-m", tc.scenario, "--runs", "2", "--json", "--out", out}, tc.args...)
				_, stdout, stderr := drip(t, args...)
				var s stats.Summary
				if err := json.Unmarshal([]byte(stdout), &s); err != nil {
					t.Fatalf("--json: %v\n%s", err, stderr)
				}
				recs := readRecords(t, out)
				for _, r := range recs {
					if r.Error == nil || r.Error.Class != record.ErrNotStream ||
						!strings.Contains(r.Error.Message, tc.ct) || !strings.Contains(r.Error.Message, tc.starts) {
						t.Errorf("%s at %s %v: error %+v, want not_stream naming %s and %q", tc.scenario, tc.path, tc.args, r.Error, tc.ct, tc.starts)
					}
				}
				if s.Streams.Buffered != 0 || !slices.Contains(shapes(s), stats.ShapeNotAStream) {
					t.Errorf("%s at %s %v: buffered %d, diagnosis %v, want not-a-stream", tc.scenario, tc.path, tc.args, s.Streams.Buffered, shapes(s))
				}
			})
		})
	}
}

// A server that holds its headers until its first token (held-headers, as
// Ollama does) leaves the path's share of TTFT unknown: ttft_path and
// ttft_server are null with the reason. One that sends them at once
// (steady) keeps its split.
func TestOwnersHeldHeadersLeaveThePathUnknown(t *testing.T) {
	for _, tc := range []struct {
		scenario, path string
		held           bool
	}{{"held-headers", "/api/chat", true}, {"held-headers", "/v1/chat/completions", true}, {"steady", "/api/chat", false}} {
		t.Run(tc.scenario+tc.path, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := serveInMemory(t, fixtures.NewServer())
				out := filepath.Join(t.TempDir(), "runs.jsonl")
				if code, _, stderr := drip(t, "run", srv.URL+tc.path, "-m", tc.scenario, "--runs", "3", "--out", out); code != exitOK {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				for _, r := range readRecords(t, out) {
					unknown := r.TTFTPathMS == nil && r.TTFTServerMS == nil && r.TTFTPathUnknown == record.PathHeadersWithContent
					if unknown != tc.held || !tc.held && (r.TTFTPathMS == nil || *r.TTFTPathMS != *r.HeadersMS) {
						t.Errorf("headers %v ttft %v: path %v server %v unknown %q, want held %v", *r.HeadersMS, *r.TTFTMS, r.TTFTPathMS, r.TTFTServerMS, r.TTFTPathUnknown, tc.held)
					}
				}
			})
		})
	}
}

// compareVerdict runs drip compare --json on two record files and returns
// the second run's reading.
func compareVerdict(t *testing.T, base, run string) string {
	t.Helper()
	code, stdout, stderr := drip(t, "compare", base, run, "--json")
	if code != exitOK {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	var out struct {
		Readings []struct{ Verdict string } `json:"readings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Readings) != 1 {
		t.Fatalf("compare --json: %v\n%s", err, stdout)
	}
	return out.Readings[0].Verdict
}

// runTo runs drip against url with args, its records in dir/name.
func runTo(t *testing.T, url, dir, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	if code, _, stderr := drip(t, append([]string{"run", url, "--runs", "12", "--out", out}, args...)...); code != exitOK {
		t.Fatalf("run %s: exit %d\n%s", name, code, stderr)
	}
	return out
}

// A 5 ms longer path on a 180 ms TTFT (under compare's 5% floor) reads
// network-path; a server that holds its headers and got 700 ms slower to
// its first token never does.
func TestOwnersCompareReadsSmallPathsNotHeldHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		dir := t.TempDir()
		base := runTo(t, srv.URL, dir, "base.jsonl", "-m", "steady")
		longer := runTo(t, srv.URL, dir, "longer.jsonl", "-m", "steady", "-H", "Path-Delay: 5ms")
		if v := compareVerdict(t, base, longer); !strings.Contains(v, "network-path") || !strings.Contains(v, "grew by about 5") {
			t.Errorf("a 5 ms longer path: verdict %q, want network-path, grew by about 5 ms", v)
		}
		held := runTo(t, srv.URL+"/api/chat", dir, "held.jsonl", "-m", "held-headers")
		slower := runTo(t, srv.URL+"/api/chat", dir, "slower.jsonl", "-m", "held-headers", "-H", "Start-Delay: 700ms")
		if v := compareVerdict(t, held, slower); strings.Contains(v, "network-path") {
			t.Errorf("headers held by a slower server: verdict %q reads the path", v)
		}
	})
}

// A proxy added on the way (forwarding every 200 ms, as haproxy does)
// changes how the content arrives: compare reads a hop changed, never
// that the server got slower.
func TestOwnersCompareReadsAnAddedProxyAsAHop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := serveInMemory(t, fixtures.NewServer())
		dir := t.TempDir()
		direct := runTo(t, fx.URL, dir, "direct.jsonl", "-m", "steady")
		upstream, _ := url.Parse(fx.URL)
		px := serveInMemory(t, &fixtures.IntervalProxy{Upstream: upstream, Transport: &http.Transport{DialContext: fx.Dial}, Every: 200 * time.Millisecond})
		proxied := runTo(t, px.URL, dir, "proxied.jsonl", "-m", "steady")
		if v := compareVerdict(t, direct, proxied); !strings.Contains(v, "a hop changed") || strings.Contains(v, "server is slower") {
			t.Errorf("a proxy added: verdict %q, want a hop changed", v)
		}
	})
}

// Every test docs/owners.md names as a row's proof exists, in drip's
// module or the integration module: a row whose test was renamed or
// removed proves nothing.
func TestOwnersTableNamesRealTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/owners.md")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1)
	if len(named) == 0 {
		t.Fatal("docs/owners.md names no test")
	}
	var src strings.Builder
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		src.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		if !strings.Contains(src.String(), "func "+m[1]+"(t *testing.T)") {
			t.Errorf("docs/owners.md names %s, which no test file defines", m[1])
		}
	}
}
