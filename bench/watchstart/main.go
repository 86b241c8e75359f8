// Command watchstart measures whether the screen moves a number. It starts
// `drip watch` fresh N times with its screen open in a real terminal (a
// tmux pane) and N times headless (--no-tui), alternating so both meet the
// same machine load, against a fixture server on a fixed schedule (the
// "steady" scenario, first word at 180 ms). Each run's record is the
// first stream of a fresh process; the report compares their TTFT and
// headers time.
//
//	go build -o /tmp/drip ./cmd/drip
//	go run ./bench/watchstart -drip /tmp/drip -n 30
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

func main() {
	bin := flag.String("drip", "drip", "the drip binary to measure")
	n := flag.Int("n", 20, "fresh starts of each kind")
	scenario := flag.String("scenario", "steady", "fixture scenario")
	size := flag.String("size", "120x40", "terminal size of the tmux pane")
	flag.Parse()
	w, h, ok := strings.Cut(*size, "x")
	if _, err := exec.LookPath("tmux"); err != nil || !ok {
		fmt.Fprintln(os.Stderr, "watchstart: needs tmux and -size WxH")
		os.Exit(2)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go http.Serve(l, fixtures.NewServer())
	url := "http://" + l.Addr().String()
	dir, err := os.MkdirTemp("", "watchstart")
	check(err)
	defer os.RemoveAll(dir)

	fmt.Printf("drip watch %s -m %s, %d fresh starts each, screen in tmux %sx%s\n", url, *scenario, *n, w, h)
	fmt.Printf("load average at start: %s\n", loadavg())
	var tuiRecs, headRecs []*record.Record
	for i := range *n {
		out := filepath.Join(dir, fmt.Sprintf("head-%d.jsonl", i))
		cmd := exec.Command(*bin, "watch", url, "-m", *scenario, "--no-tui", "--out", out)
		check(cmd.Run())
		headRecs = append(headRecs, readRecord(out))

		out = filepath.Join(dir, fmt.Sprintf("tui-%d.jsonl", i))
		tuiRecs = append(tuiRecs, watchInTmux(fmt.Sprintf("watchstart-%d-%d", os.Getpid(), i), w, h,
			fmt.Sprintf("%s watch %s -m %s --out %s", *bin, url, *scenario, out), out))
	}
	fmt.Printf("load average at end:   %s\n", loadavg())
	fmt.Printf("%-12s %-9s %8s %8s %8s %8s\n", "figure", "mode", "p50", "p90", "p99", "max")
	for _, fig := range []struct {
		name string
		get  func(*record.Record) *float64
	}{{"ttft_ms", func(r *record.Record) *float64 { return r.TTFTMS }}, {"headers_ms", func(r *record.Record) *float64 { return r.HeadersMS }}} {
		head, scr := figures(headRecs, fig.get), figures(tuiRecs, fig.get)
		row(fig.name, "headless", head)
		row(fig.name, "screen", scr)
		fmt.Printf("%-12s %-9s %8.2f %8.2f %8.2f %8.2f\n", fig.name, "Δ", *scr.P50-*head.P50, *scr.P90-*head.P90, *scr.P99-*head.P99, *scr.Max-*head.Max)
	}
}

// watchInTmux runs cmd in a detached tmux pane, waits for its first
// record, quits it with q and returns the record.
func watchInTmux(session, w, h, cmd, out string) *record.Record {
	check(exec.Command("tmux", "new-session", "-d", "-s", session, "-x", w, "-y", h, cmd).Run())
	defer exec.Command("tmux", "kill-session", "-t", session).Run()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if fi, err := os.Stat(out); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			check(fmt.Errorf("%s: no record after 30 s", session))
		}
	}
	exec.Command("tmux", "send-keys", "-t", session, "q").Run()
	for i := 0; i < 100 && exec.Command("tmux", "has-session", "-t", session).Run() == nil; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	return readRecord(out)
}

func readRecord(path string) *record.Record {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	recs, _, err := record.ReadAll(f, nil)
	check(err)
	if len(recs) == 0 {
		check(fmt.Errorf("%s: no record", path))
	}
	r := recs[0]
	if r.Status != record.StatusComplete {
		check(fmt.Errorf("%s: stream %s", path, r.Status))
	}
	return r
}

func figures(recs []*record.Record, get func(*record.Record) *float64) stats.Dist {
	var xs []float64
	for _, r := range recs {
		if v := get(r); v != nil {
			xs = append(xs, *v)
		}
	}
	return stats.NewDist(slices.Clip(xs))
}

func row(name, mode string, d stats.Dist) {
	fmt.Printf("%-12s %-9s %8.2f %8.2f %8.2f %8.2f\n", name, mode, *d.P50, *d.P90, *d.P99, *d.Max)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "watchstart:", err)
		os.Exit(1)
	}
}
