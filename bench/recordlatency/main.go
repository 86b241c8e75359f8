// Command recordlatency measures what drip record adds to each frame's
// trip with the proxy in its own process, as a user runs it. This process
// is the upstream and the clients, the real binary (-drip) is the proxy.
//
// Every stream is asked for twice at once, directly and through the proxy.
// The upstream writes frame i of both twins at one scheduled instant
// (stream start + i × -gap), each frame carrying the time it was written,
// and each client notes when its read returned it, a trip. Twins are matched
// by stream and frame index, and a frame's added latency is its proxied trip
// minus its direct twin's, as both met the same machine at the same moment.
// Streams start at seeded random instants within -spread, as independent
// clients do. -spread 0 starts them all at once, every stream's frame i at
// the same instant, a burst of n frames every gap.
//
// The proxy's CPU per frame is its user and system time (/proc/PID/stat)
// over each pass ÷ the frames it forwarded. This process
// runs with its garbage collector off (a 1 GiB limit), so that a collection
// here does not delay one twin and not the other.
//
//	go build -o /tmp/drip ./cmd/drip
//	go run ./bench/recordlatency -drip /tmp/drip -streams 1 -frames 1000 -rounds 5
//	go run ./bench/recordlatency -drip /tmp/drip -streams 100 -rounds 5              # starts over 1s
//	go run ./bench/recordlatency -drip /tmp/drip -streams 100 -rounds 5 -spread 0    # all at once
//	go run ./bench/recordlatency -drip /tmp/drip -streams 100 -rounds 5 -hops        # keeping read times for drip watch --relay
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

var origin = time.Now()

// config is one invocation's flags.
type config struct {
	drip        string
	levels      []int
	rounds      int
	frames      int
	gap, spread time.Duration
	seed        uint64
	hops        bool
}

func main() {
	var c config
	flag.StringVar(&c.drip, "drip", "", "the drip binary to run as the proxy (required)")
	levels := flag.String("streams", "1,100", "concurrent streams per pass, comma-separated (each asked for directly and through the proxy)")
	flag.IntVar(&c.rounds, "rounds", 3, "passes per level")
	flag.IntVar(&c.frames, "frames", 200, "frames per stream")
	flag.DurationVar(&c.gap, "gap", 10*time.Millisecond, "time between a stream's frames")
	flag.DurationVar(&c.spread, "spread", time.Second, "start the streams at random instants within this time (0: all at once, every stream's frames at the same instants)")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the start instants")
	flag.BoolVar(&c.hops, "hops", false, "run drip record with --hops-addr, keeping each stream's read times for drip watch --relay")
	flag.Parse()
	var err error
	switch c.levels, err = parseLevels(*levels); {
	case c.drip == "":
		err = fmt.Errorf("-drip: name the drip binary, e.g. -drip /tmp/drip")
	case c.rounds < 1 || c.frames < 10 || c.gap <= 0 || c.spread < 0:
		err = fmt.Errorf("-rounds must be at least 1, -frames at least 10, -gap positive, -spread not negative")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "recordlatency:", err)
		os.Exit(2)
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 30)
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "recordlatency:", err)
		os.Exit(1)
	}
}

func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-streams %q: want counts like 1,100", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func run(c config) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, upstream(c.frames, c.gap))
	up := "http://" + ln.Addr().String()
	dir, err := os.MkdirTemp("", "recordlatency")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	proxy, pid, stop, err := startRecord(c.drip, up, filepath.Join(dir, "rec.jsonl"), c.hops)
	if err != nil {
		return err
	}
	direct, proxied := newClient(), newClient()
	printHead(c)
	rng := rand.New(rand.NewPCG(c.seed, 0))
	streams := 0
	for _, n := range c.levels {
		for r := range c.rounds {
			load, cpu0 := loadavg(), processCPU(pid)
			d, p, err := pass(direct, proxied, up, proxy, n, c, rng)
			if err != nil {
				return err
			}
			cpu := processCPU(pid) - cpu0
			if cpu0 < 0 {
				cpu = -1
			}
			streams += n
			added := make([]float64, len(d))
			for i := range d {
				added[i] = p[i] - d[i]
			}
			fmt.Printf("| %d | %d | %s | %d | %s | %s | %s | %s | %s |\n", n, r+1, load, len(d), p5099(d), p5099(p), p5099(added), byPosition(added, c.frames), perFrame(cpu, len(p)))
		}
	}
	recorded, err := stop()
	if err != nil {
		return err
	}
	// The proxy must have recorded what it forwarded, or it did not do
	// its whole job while measured.
	if recorded != streams {
		return fmt.Errorf("drip record wrote %d complete records for %d proxied streams", recorded, streams)
	}
	fmt.Printf("drip record wrote %d complete records, one per proxied stream; CPU per frame is the proxy's user and system time over the pass (forwarding, recording, writing the file, idle wake-ups) ÷ frames forwarded\n", recorded)
	return nil
}

// printHead says what a run measures and opens its table.
func printHead(c config) {
	starts := "at random instants within " + c.spread.String()
	if c.spread == 0 {
		starts = "all at once"
	}
	keeps := ""
	if c.hops {
		keeps = ", keeping read times for drip watch --relay (--hops-addr)"
	}
	fmt.Printf("drip record%s added latency · %d frames %s apart per stream, streams starting %s (seed %d) · upstream and clients in this process, drip record in its own\n", keeps, c.frames, c.gap, starts, c.seed)
	fmt.Println("| streams | round | load avg | frames | direct p50 / p99 ms | proxied p50 / p99 ms | added per frame p50 / p99 ms | added p99: first 5 / middle / last 5 frames | proxy CPU per frame |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
}

// upstream serves ?at=NS&frames=N, frame i written at origin+at+i*gap,
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
func pass(direct, proxied *http.Client, up, proxy string, n int, c config, rng *rand.Rand) ([]float64, []float64, error) {
	first := time.Since(origin) + 200*time.Millisecond // time to connect and send
	d, p := make([][]float64, n), make([][]float64, n)
	errs := make(chan error, 2*n)
	var wg sync.WaitGroup
	for k := range n {
		at := int64(first)
		if c.spread > 0 {
			at += rng.Int64N(int64(c.spread))
		}
		wg.Go(func() { d[k] = stream(direct, up, at, c.frames, errs) })
		wg.Go(func() { p[k] = stream(proxied, proxy, at, c.frames, errs) })
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
			return make([]float64, frames) // keeps the twins aligned, and the pass fails
		}
	}
}

func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000, DisableCompression: true}}
}

// startRecord runs drip record in front of up (with hops, serving its
// streams' read times too) and returns its URL, its process id and a
// function that stops it (Ctrl-C, as a user does) and counts the complete
// records it wrote.
func startRecord(drip, up, out string, hops bool) (string, int, func() (int, error), error) {
	args := []string{"record", "--listen", "127.0.0.1:0", "--upstream", up, "--out", out}
	if hops {
		args = append(args, "--hops-addr", "127.0.0.1:0")
	}
	cmd := exec.Command(drip, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		cmd.Wait()
		return "", 0, nil, fmt.Errorf("drip record said nothing")
	}
	// "drip record: http://ADDR → UPSTREAM · writing FILE"
	addr, _, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "drip record: "), " ")
	if !ok || !strings.HasPrefix(addr, "http://") {
		cmd.Process.Kill()
		return "", 0, nil, fmt.Errorf("drip record: %s", sc.Text())
	}
	go io.Copy(io.Discard, stderr)
	stop := func() (int, error) {
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 { // 130 is a stop by Ctrl-C, as it should be
			return 0, fmt.Errorf("drip record: %v", err)
		}
		f, err := os.Open(out)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		recs, _, err := record.ReadAll(f, stats.Rederive)
		complete := 0
		for _, r := range recs {
			if r.Status == record.StatusComplete && len(r.Frames) > 0 {
				complete++
			}
		}
		return complete, err
	}
	return addr, cmd.Process.Pid, stop, nil
}

// processCPU is the user and system time process pid has used, threads
// that ended included, from /proc/PID/stat (in 10 ms ticks, as USER_HZ is 100),
// or -1 where there is none.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// utime and stime are the 12th and 13th fields after the command name,
	// which is in parentheses.
	_, rest, _ := bytes.Cut(b, []byte(") "))
	f := strings.Fields(string(rest))
	if len(f) < 13 {
		return -1
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func perFrame(cpu time.Duration, frames int) string {
	if cpu < 0 || frames == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f µs", float64(cpu.Nanoseconds())/1e3/float64(frames))
}

// byPosition is the p99 of added latency over each stream's first five
// frames, its middle and its last five. The ends meet the connection and
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
