package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/telemetry"
	"github.com/driplab/drip/internal/testenv"
	"github.com/driplab/drip/stats"
)

// vmVersion is the VictoriaMetrics release tools/victoriametrics pins.
const vmVersion = "v1.151.0"

// victoriaMetrics finds the server binary: $DRIP_VICTORIAMETRICS, else
// where .ci/run caches it.
func victoriaMetrics(t *testing.T) string {
	p := os.Getenv("DRIP_VICTORIAMETRICS")
	if p == "" {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, ".cache", "drip", "victoria-metrics-"+vmVersion)
	}
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "VictoriaMetrics single-node "+vmVersion+" at "+p,
			"cd integration/tools/victoriametrics && go build -o "+p+" github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics (.ci/run does it)")
	}
	return p
}

// freeAddr is a loopback address nothing listens on just now: the scrape
// config must name drip's /metrics before drip starts.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startVM runs VictoriaMetrics on loopback, scraping target every second.
func startVM(t *testing.T, bin, target string) string {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "scrape.yml")
	os.WriteFile(cfg, fmt.Appendf(nil, "scrape_configs:\n- job_name: drip\n  scrape_interval: 1s\n  static_configs:\n  - targets: [%q]\n", target), 0o600)
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-httpListenAddr="+addr, "-storageDataPath="+filepath.Join(dir, "data"),
		"-promscrape.config="+cfg, "-search.latencyOffset=0s", "-loggerLevel=ERROR", "-retentionPeriod=1d")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("victoria-metrics log:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("victoria-metrics did not come up on %s:\n%s", addr, logs.String())
		}
	}
}

// query is an instant query's single value through the Prometheus API;
// false while there is no series.
func query(t *testing.T, base, q string) (float64, bool) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("%s: %v %s %s", q, err, r.Status, r.Error)
	}
	if len(r.Data.Result) != 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(r.Data.Result[0].Value[1].(string), 64)
	return v, err == nil
}

// await polls q until it returns want or the deadline passes (ingestion
// takes a moment), then reports what it last saw.
func await(t *testing.T, base, q string, want float64, deadline time.Time) {
	t.Helper()
	for {
		got, ok := query(t, base, q)
		if ok && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s = %v (series found: %v), want %v", q, got, ok, want)
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// The acceptance of the exporters: drip run scraped by VictoriaMetrics and
// pushing OTLP to it; the counts in both equal the --json summary's, and a
// histogram quantile lies within the documented bound (one bucket,
// ×telemetry.BucketFactor) of the samples either side of drip's own
// percentile.
func TestVictoriaMetricsAgreesWithTheSummary(t *testing.T) {
	t.Parallel()
	bin := victoriaMetrics(t)
	fx := httptest.NewServer(fixtures.NewServer())
	defer fx.Close()
	metricsAddr := freeAddr(t)
	vm := startVM(t, bin, metricsAddr)

	dir := t.TempDir()
	drip := buildDrip(t)
	recsPath := filepath.Join(dir, "recs.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, drip, "run", fx.URL, "-m", "mid-sentence-stall", "--runs", "6", "--concurrency", "3",
		"--metrics-addr", metricsAddr, "--linger", "3s", "--otlp", vm+"/opentelemetry",
		"--host-label", "it-host", "--label", "suite=vm", "--json", "--out", recsPath)
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("drip run: %v\n%s", err, stderr.String())
	}
	if bytes.Contains(stderr.Bytes(), []byte("--otlp:")) {
		t.Fatalf("the OTLP push failed:\n%s", stderr.String())
	}
	var s stats.Summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	m := s.Metrics
	deadline := time.Now().Add(30 * time.Second)
	// Once drip is gone the scraped series end with a staleness marker,
	// so every query reads the last value of the last 10 minutes.
	last := func(sel string) string { return "last_over_time(" + sel + "[10m])" }
	scraped := `{job="drip",host="it-host",suite="vm"}`
	for q, want := range map[string]int{
		"sum(" + last("drip_streams_total"+scraped) + ")":                                                        s.Streams.Admitted,
		"sum(" + last(`drip_streams_total{job="drip",status="complete"}`) + ")":                                  s.Streams.Completed,
		"sum(" + last("drip_ttft_seconds_count"+scraped) + ")":                                                   m["ttft_ms"].N,
		"sum(" + last("drip_gap_seconds_count"+scraped) + ")":                                                    m["gap_ms"].N,
		"sum(" + last("drip_itl_seconds_count"+scraped) + ")":                                                    m["itl_ms"].N,
		"sum(" + last("drip_e2e_seconds_count"+scraped) + ")":                                                    m["e2e_ms"].N,
		"sum(" + last("drip_stalls_total"+scraped) + ")":                                                         s.Stalls.Count,
		"sum(" + last("drip_output_tokens_total"+scraped) + ")":                                                  s.Throughput.OutputTokens,
		"sum(" + last(`{__name__="drip.streams",host.name="it-host",suite="vm"}`) + ")":                          s.Streams.Admitted,
		"sum(" + last(`{__name__="gen_ai.client.operation.duration_count"}`) + ")":                               m["duration_ms"].N,
		"sum(" + last(`{__name__="gen_ai.client.operation.time_to_first_chunk_count"}`) + ")":                    m["ttft_ms"].N,
		"sum(" + last(`{__name__="gen_ai.client.operation.time_per_output_chunk_count"}`) + ")":                  m["gap_ms"].N,
		"sum(" + last(`{__name__="drip.stream.itl_count"}`) + ")":                                                m["itl_ms"].N,
		"sum(" + last(`{__name__="drip.stream.e2e_count"}`) + ")":                                                m["e2e_ms"].N,
		"sum(" + last(`{__name__="drip.stream.stalls"}`) + ")":                                                   s.Stalls.Count,
		"sum(" + last(`{__name__="gen_ai.client.token.usage_sum"}`) + ")":                                        s.Throughput.OutputTokens,
		"sum(" + last(`{__name__="gen_ai.client.token.usage_count"}`) + ")":                                      m["output_tokens"].N,
		"sum(" + last(`{__name__="gen_ai.client.operation.duration_count",gen_ai.provider.name="openai"}`) + ")": m["duration_ms"].N,
	} {
		await(t, vm, q, float64(want), deadline)
	}

	recs := readRecords(t, recsPath)
	var gaps, ttfts []float64
	for _, r := range recs {
		gaps = append(gaps, r.Gaps()...)
		if r.TTFTMS != nil {
			ttfts = append(ttfts, *r.TTFTMS)
		}
	}
	for _, tc := range []struct {
		q       string
		raw     []float64
		pct     float64
		summary *float64
	}{
		{"histogram_quantile(0.99, sum(" + last("drip_gap_seconds_bucket") + ") by (le))", gaps, 99, m["gap_ms"].P99},
		{"histogram_quantile(0.5, sum(" + last("drip_ttft_seconds_bucket") + ") by (le))", ttfts, 50, m["ttft_ms"].P50},
		{"histogram_quantile(0.99, sum(" + last(`{__name__="gen_ai.client.operation.time_per_output_chunk_bucket"}`) + ") by (le))", gaps, 99, m["gap_ms"].P99},
		{"histogram_quantile(0.5, sum(" + last(`{__name__="gen_ai.client.operation.time_to_first_chunk_bucket"}`) + ") by (le))", ttfts, 50, m["ttft_ms"].P50},
	} {
		got, ok := query(t, vm, tc.q)
		lo, hi := neighbours(tc.raw, tc.pct)
		lo, hi = lo/1000/telemetry.BucketFactor, hi/1000*telemetry.BucketFactor
		if !ok || got < lo || got > hi {
			t.Errorf("%s = %v s (found %v); drip's p%g is %v ms: want within [%v, %v] s", tc.q, got, ok, tc.pct, *tc.summary, lo, hi)
		}
	}
}

// neighbours are the samples either side of the percentile's rank, the
// two drip interpolates between.
func neighbours(samples []float64, pct float64) (lo, hi float64) {
	s := slices.Sorted(slices.Values(samples))
	pos := pct / 100 * float64(len(s)-1)
	return s[int(math.Floor(pos))], s[int(math.Ceil(pos))]
}
