// Command recordlatency measures what drip record adds to each frame's
// trip with the proxy in its own process, as a user runs it: this process
// is the upstream and the clients, the real binary (-drip) is the proxy.
// Every stream is asked for twice at once, directly and through the proxy;
// the upstream writes frame i of both at one scheduled instant (frames
// -gap apart, the streams' starts spread over one gap or -spread), each
// frame carrying its write time, and each client notes when it read it. A
// frame's added latency is its proxied trip minus its direct twin's: both
// met the same machine at the same moment.
//
//	go build -o /tmp/drip ./cmd/drip
//	go run ./bench/recordlatency -drip /tmp/drip -streams 1,100 -rounds 3
//	go run ./bench/recordlatency -drip /tmp/drip -streams 100 -spread 500ms   # steady state
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

var origin = time.Now()

func main() {
	drip := flag.String("drip", "", "the drip binary to run as the proxy (required)")
	levels := flag.String("streams", "1,100", "concurrent streams per pass, comma-separated (each asked for directly and through the proxy)")
	rounds := flag.Int("rounds", 3, "passes per level")
	frames := flag.Int("frames", 50, "frames per stream")
	gap := flag.Duration("gap", 10*time.Millisecond, "time between a stream's frames")
	spread := flag.Duration("spread", 0, "start the streams evenly over this time (0: one gap, so they also end within one; frames × gap: a steady state, streams starting and ending all along)")
	flag.Parse()
	if *spread <= 0 {
		*spread = *gap
	}
	if *drip == "" {
		fmt.Fprintln(os.Stderr, "recordlatency: -drip: name the drip binary, e.g. -drip /tmp/drip")
		os.Exit(2)
	}
	if err := run(*drip, *levels, *rounds, *frames, *gap, *spread); err != nil {
		fmt.Fprintln(os.Stderr, "recordlatency:", err)
		os.Exit(1)
	}
}

func run(drip, levels string, rounds, frames int, gap, spread time.Duration) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, upstream(frames, gap))
	up := "http://" + ln.Addr().String()
	dir, err := os.MkdirTemp("", "recordlatency")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	proxy, stop, err := startRecord(drip, up, filepath.Join(dir, "rec.jsonl"))
	if err != nil {
		return err
	}
	direct, proxied := newClient(), newClient()
	fmt.Printf("drip record added latency · %d frames %s apart per stream, starts spread over %s · upstream and clients in this process, drip record in its own\n", frames, gap, spread)
	fmt.Println("| streams | round | load avg | frames | direct p50 / p99 ms | proxied p50 / p99 ms | added per frame p50 / p99 ms | added p99: first 5 / middle / last 5 frames |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	total, proxiedFrames := 0, 0
	for _, f := range strings.Split(levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-streams %q: want counts like 1,100", levels)
		}
		for r := range rounds {
			load := loadavg()
			d, p, err := pass(direct, proxied, up, proxy, n, frames, gap, spread)
			if err != nil {
				return err
			}
			total += 2 * n
			proxiedFrames += len(p)
			added := make([]float64, len(d))
			for i := range d {
				added[i] = p[i] - d[i]
			}
			fmt.Printf("| %d | %d | %s | %d | %s | %s | %s | %s |\n", n, r+1, load, len(d), p5099(d), p5099(p), p5099(added), byPosition(added, frames))
		}
	}
	recorded, cpu, err := stop()
	if err != nil {
		return err
	}
	// The proxy must have recorded what it forwarded, or it did not do
	// its whole job while measured.
	if recorded != total/2 {
		return fmt.Errorf("drip record wrote %d complete records for %d proxied streams", recorded, total/2)
	}
	fmt.Printf("drip record wrote %d complete records, one per proxied stream, and used %.2f s of CPU: %.1f µs per frame forwarded and recorded\n",
		recorded, cpu.Seconds(), float64(cpu.Microseconds())/float64(proxiedFrames))
	return nil
}

// upstream serves ?at=NS&frames=N: frame i written at origin+at+i*gap,
// as an OpenAI chat chunk whose content is its write time (ns since
// origin).
func upstream(frames int, gap time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at, _ := strconv.ParseInt(r.URL.Query().Get("at"), 10, 64)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		var b []byte
		for i := range frames {
			time.Sleep(time.Until(origin.Add(time.Duration(at) + time.Duration(i)*gap)))
			b = fmt.Appendf(b[:0], "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%d\"}}]}\n\n", time.Since(origin).Nanoseconds())
			w.Write(b)
			if rc.Flush() != nil {
				return
			}
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
}

// pass streams n pairs (direct, proxied) at once and returns each frame's
// trip in ms, the i-th proxied frame the twin of the i-th direct one.
func pass(direct, proxied *http.Client, up, proxy string, n, frames int, gap, spread time.Duration) ([]float64, []float64, error) {
	first := time.Since(origin) + 200*time.Millisecond // time to connect and send
	d, p := make([][]float64, n), make([][]float64, n)
	errs := make(chan error, 2*n)
	var wg sync.WaitGroup
	for k := range n {
		at := int64(first + time.Duration(k)*spread/time.Duration(n))
		wg.Go(func() { d[k] = stream(direct, up, at, frames, errs) })
		wg.Go(func() { p[k] = stream(proxied, proxy, at, frames, errs) })
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, nil, err
	}
	return slices.Concat(d...), slices.Concat(p...), nil
}

func stream(c *http.Client, base string, at int64, frames int, errs chan<- error) []float64 {
	resp, err := c.Post(fmt.Sprintf("%s/v1/chat/completions?at=%d", base, at), "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	if err != nil {
		errs <- err
		return nil
	}
	defer resp.Body.Close()
	trips := make([]float64, 0, frames)
	var pending []byte
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		now := time.Since(origin).Nanoseconds()
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.Index(pending, []byte("\n\n"))
			if i < 0 {
				break
			}
			if _, v, ok := bytes.Cut(pending[:i], []byte(`"content":"`)); ok {
				wrote, _ := strconv.ParseInt(string(v[:bytes.IndexByte(v, '"')]), 10, 64)
				trips = append(trips, float64(now-wrote)/1e6)
			}
			pending = pending[i+2:]
		}
		if rerr == io.EOF && len(trips) == frames {
			return trips
		}
		if rerr != nil {
			errs <- fmt.Errorf("%s: %d of %d frames, then %v", base, len(trips), frames, rerr)
			return make([]float64, frames) // keeps the twins aligned; the pass fails
		}
	}
}

func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000, DisableCompression: true}}
}

// startRecord runs drip record in front of up and returns its URL and a
// function that stops it (Ctrl-C, as a user does) and counts the complete
// records it wrote and the CPU time it used.
func startRecord(drip, up, out string) (string, func() (int, time.Duration, error), error) {
	cmd := exec.Command(drip, "record", "--listen", "127.0.0.1:0", "--upstream", up, "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		cmd.Wait()
		return "", nil, fmt.Errorf("drip record said nothing")
	}
	// "drip record: http://ADDR → UPSTREAM · writing FILE"
	addr, _, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "drip record: "), " ")
	if !ok || !strings.HasPrefix(addr, "http://") {
		cmd.Process.Kill()
		return "", nil, fmt.Errorf("drip record: %s", sc.Text())
	}
	go io.Copy(io.Discard, stderr)
	stop := func() (int, time.Duration, error) {
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 { // 130: stopped by Ctrl-C, as it should be
			return 0, 0, fmt.Errorf("drip record: %v", err)
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		f, err := os.Open(out)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		recs, _, err := probe.ReadRecords(f)
		complete := 0
		for _, r := range recs {
			if r.Status == record.StatusComplete && len(r.Frames) > 0 {
				complete++
			}
		}
		return complete, cpu, err
	}
	return addr, stop, nil
}

// byPosition is the p99 of added latency over each stream's first five
// frames, its middle and its last five: the ends meet the connection and
// the records being written.
func byPosition(added []float64, frames int) string {
	var parts [3][]float64
	for i, v := range added {
		switch k := i % frames; {
		case k < 5:
			parts[0] = append(parts[0], v)
		case k >= frames-5:
			parts[2] = append(parts[2], v)
		default:
			parts[1] = append(parts[1], v)
		}
	}
	var out []string
	for _, p := range parts {
		slices.Sort(p)
		out = append(out, fmt.Sprintf("%.3f", stats.Percentile(p, 99)))
	}
	return strings.Join(out, " / ")
}

func p5099(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.3f / %.3f", stats.Percentile(s, 50), stats.Percentile(s, 99))
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
