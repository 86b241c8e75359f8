// Command load measures drip under load, N concurrent streams from the
// fixture server (the "paced" scenario, 200 frames at 20 per second), run
// through drip's closed-loop runner with records written as JSON Lines. It
// reports drip's timestamp error against the server's own write times,
// the CPU both sides used, and drip's memory per in-flight stream and per
// recorded frame.
//
// The fixture server runs in a child process by default (-inproc keeps it
// in this one), so the client's figures are its own. Both sides stamp with
// the wall clock (CLOCK_REALTIME, shared by the processes). Over a 10 s run
// its slew is far below a millisecond.
//
// With -tui the same passes also run with the run screen open (the real
// Bubble Tea program drawing to nowhere), alternating with headless ones so
// both meet the same machine load.
//
// With -floor each timing pass is followed by the same streams through the
// floor client (floor.go, a raw socket per stream stamping each read and
// nothing else), and drip's stamp error is given over the floor's. With
// -rounds both clients' stamp errors are also pooled over the rounds.
//
// Before the first pass the fixture server serves as many streams of a
// short scenario, unmeasured, so no pass meets a cold server.
//
// With -witness-off each timing pass is paired with one without the
// kernel witness, and drip's CPU per frame is given as a ratio. With
// -rounds the witness-off pass goes first in every other round, because
// a process's first pass costs a few percent more than its second.
//
//	go run ./bench/load -streams 1000
//	go run ./bench/load -streams 1000 -tui -rounds 3
//	go run ./bench/load -streams 1000 -witness-off -rounds 6
//	go run ./bench/load -streams 10000 -floor
//	go run ./bench/load -streams 100 -floor -rounds 5
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/gctune"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// cpuProfile, traceFile, profileAfter and profileFor are -cpuprofile,
// -trace, -profile-after and -profile-for.
var (
	cpuProfile   string
	traceFile    string
	profileAfter time.Duration
	profileFor   time.Duration
	ramp         time.Duration // -ramp
	withTUI      bool          // -tui
	withFloor    bool          // -floor
	memProfile   string        // -memprofile
	witnessOff   bool          // -witness-off
	noWitness    bool          // the pass under way reads without the kernel witness
)

func main() {
	streams := flag.Int("streams", 1000, "concurrent streams")
	scenario := flag.String("scenario", "paced", "fixture scenario each stream asks for")
	inproc := flag.Bool("inproc", false, "run the fixture server in this process")
	serve := flag.Bool("serve", false, "be the fixture server, printing its URL (the child process; or a server for -pair)")
	withTUIFlag := flag.Bool("tui", false, "also measure with the run screen open (a real Bubble Tea program drawing 120x40 to nowhere), alternating with headless")
	rounds := flag.Int("rounds", 1, "with -tui: headless and run-screen passes, alternated, this many times each; with -witness-off: witness on and off passes, the first of each round alternated; with -floor: drip and floor passes this many times each, their stamp errors also pooled")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run-screen timing passes (of every timing pass without -tui) to this file")
	flag.StringVar(&traceFile, "trace", "", "write a runtime trace (go tool trace) of the same passes and window as -cpuprofile to this file")
	flag.DurationVar(&profileAfter, "profile-after", 0, "with -cpuprofile or -trace: start profiling this long into each pass (9.5s: the end burst only)")
	flag.DurationVar(&profileFor, "profile-for", 0, "with -cpuprofile or -trace: stop profiling this long after it started (1s: the start burst only); 0 profiles to the end of the pass")
	pairFile := flag.String("pair", "", "pair the records of a drip run (--out FILE, prompts s0, s1, …, against a -serve server) with that server's write times, given by -server")
	server := flag.String("server", "", "with -pair: the -serve server's URL")
	flag.BoolVar(&withFloor, "floor", false, "after each timing pass, the same streams through the floor client (a raw socket per stream stamping each read, nothing else) and drip/floor ratios")
	flag.StringVar(&memProfile, "memprofile", "", "write a heap profile of the memory pass at 2 s (every stream in flight) to this file")
	flag.BoolVar(&witnessOff, "witness-off", false, "after each timing pass, the same pass with the kernel witness off (probe.Options.NoWitness) and the CPU per frame of the two as a ratio")
	flag.DurationVar(&ramp, "ramp", 0, "start the streams evenly over this time (an open loop of streams/ramp per second, all admitted) instead of all at once")
	flag.Parse()
	if *serve {
		serveFixtures()
		return
	}
	if *pairFile != "" {
		if err := pairRun(*pairFile, *server, *scenario); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
		return
	}
	// As drip run does. The server keeps the default.
	gctune.ForStreams(*streams)
	withTUI = *withTUIFlag
	if err := bench(*streams, *scenario, *inproc, withTUI, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// benchHandler is the fixture server with two additions for pairing. The
// prompt of each request (the client sends s0, s1, …) becomes the tag of
// its model, so the server logs each stream's write times apart.
// /bench/writes returns those times, /bench/cpu the server's CPU time, and
// /bench/gc has the server collect its garbage (settle, between passes).
func benchHandler() http.Handler {
	fs := fixtures.NewServer()
	mux := http.NewServeMux()
	mux.HandleFunc("/bench/writes", func(w http.ResponseWriter, r *http.Request) {
		out := map[string][]serverWrite{}
		for _, tag := range strings.Split(r.URL.Query().Get("models"), ",") {
			for _, wr := range fs.Writes(tag) {
				if wr.Kind.IsContent() {
					out[tag] = append(out[tag], serverWrite{wr.At.UnixNano(), wr.Flushed.UnixNano()})
				}
			}
		}
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("/bench/gc", func(http.ResponseWriter, *http.Request) { runtime.GC() })
	mux.HandleFunc("/bench/cpu", func(w http.ResponseWriter, _ *http.Request) {
		c := cpuTime()
		fmt.Fprintln(w, int64(c.user), int64(c.sys))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if json.Unmarshal(body, &req) == nil {
			if msgs, ok := req["messages"].([]any); ok && len(msgs) > 0 {
				if m, ok := msgs[0].(map[string]any); ok {
					req["model"] = fmt.Sprintf("%v#%v", req["model"], m["content"])
					body, _ = json.Marshal(req)
				}
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		fs.ServeHTTP(w, r)
	})
	return mux
}

func serveFixtures() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("http://" + ln.Addr().String())
	http.Serve(ln, benchHandler())
}

// pairRun pairs a drip run's records with the -serve server's writes. It is
// the benchmark with the real binary, on a real terminal, as in tmux.
//
//	load -serve                      # prints its URL
//	drip run URL -m paced --concurrency 1000 --runs 1000 --prompt-file s.jsonl --out r.jsonl
//	load -pair r.jsonl -server URL
func pairRun(file, base, scenario string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	recs, _, err := record.ReadAll(f, stats.Rederive)
	if err != nil {
		return err
	}
	pr, err := pairing(base, scenario, stampsOfAll(recs))
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s\n%s", file, pr.head, pr.body)
	return nil
}

func bench(n int, scenario string, inproc, withTUI bool, rounds int) error {
	base, stop, err := startServer(inproc)
	if err != nil {
		return err
	}
	defer stop()
	gc := debug.SetGCPercent(-1) // read back and restored
	debug.SetGCPercent(gc)
	fmt.Printf("drip load benchmark · %d concurrent streams · scenario %s · server %s · GOMAXPROCS %d · %d CPUs · GOGC %d\n",
		n, scenario, map[bool]string{true: "in-process", false: "child process"}[inproc], runtime.GOMAXPROCS(0), runtime.NumCPU(), gc)
	modes := []bool{false}
	if withTUI {
		modes = []bool{false, true}
	} else if !witnessOff && !withFloor {
		rounds = 1
	}
	if err := warmServer(base, n); err != nil {
		return err
	}
	var cost witnessCost
	var pool floorPool
	// Headless and run-screen passes alternate, so both meet the same load
	// from whatever else runs on the machine.
	for r := range rounds {
		for _, tuiOn := range modes {
			if err := timingRound(base, scenario, n, r, tuiOn, &cost, &pool); err != nil {
				return err
			}
		}
	}
	cost.print()
	pool.print()
	// Pass 2 measures memory, with a forced GC at two points mid-run (kept out of
	// the timing passes so it cannot disturb the stamps).
	for _, tuiOn := range modes {
		fmt.Printf("\n== memory · %s · load average %s", modeName(tuiOn), loadavg())
		m, err := memoryPass(base, scenario, n, tuiOn)
		if err != nil {
			return err
		}
		fmt.Print(m)
	}
	return nil
}

// timingRound is round r's passes in one mode: drip's timing pass, and
// after it the pass without the kernel witness (-witness-off) and the
// floor's (-floor, headless only), whose figures go to cost and pool.
func timingRound(base, scenario string, n, r int, tuiOn bool, cost *witnessCost, pool *floorPool) error {
	// Pass 1 times the run, with nothing but the run itself.
	noWitness = witnessOff && r%2 == 1
	witness := map[bool]string{true: " · the kernel witness off", false: ""}[noWitness]
	fmt.Printf("\n== round %d · %s%s · load average %s", r+1, modeName(tuiOn), witness, loadavg())
	t1, drip, err := timingPass(base, scenario, n, tuiOn)
	noWitness = false
	if err != nil {
		return err
	}
	fmt.Print(t1)
	if witnessOff {
		if err := cost.pass(base, scenario, n, r, tuiOn, drip); err != nil {
			return err
		}
	}
	if withFloor && !tuiOn {
		fmt.Printf("\n== round %d · floor client · load average %s", r+1, loadavg())
		f, floor, err := floorTiming(base, scenario, n, drip)
		if err != nil {
			return err
		}
		fmt.Print(f)
		pool.add(drip, floor)
	}
	return nil
}

func modeName(tuiOn bool) string {
	if tuiOn {
		return "run screen open (Bubble Tea, 120x40, output discarded)"
	}
	return "headless"
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?\n"
	}
	return string(b)
}

func startServer(inproc bool) (string, func(), error) {
	if inproc {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", nil, err
		}
		srv := &http.Server{Handler: benchHandler()}
		go srv.Serve(ln)
		return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
	}
	cmd := exec.Command(os.Args[0], "-serve")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		return "", nil, fmt.Errorf("fixture server: %w", err)
	}
	return strings.TrimSpace(line), func() { cmd.Process.Kill(); cmd.Wait() }, nil
}

func plan(base, scenario string, n int, dir string) (probe.Plan, error) {
	u, f, err := probe.ResolveURL(base, "openai-chat")
	if err != nil {
		return probe.Plan{}, err
	}
	p := probe.Plan{
		Target:      probe.Target{URL: u, Format: f, Request: adapters.Request{Model: scenario}},
		Options:     probe.Options{StallMS: stats.DefaultStall, NoWitness: noWitness},
		Concurrency: n, Runs: n, Seed: 1,
	}
	// The pass has its own client, so runPass can close its idle
	// connections. Left open (the transport keeps them 90 s) they held 10,000 file
	// descriptors in each process through the floor's pass, and the server
	// at its fd limit refused some of the floor's connections.
	p.Options.Client = probe.ClientFor(p.Options)
	if ramp > 0 {
		p.Rate, p.Arrival, p.MaxInflight = float64(n)/ramp.Seconds(), probe.ArrivalConstant, n
	}
	for i := range n {
		id := fmt.Sprintf("s%d", i)
		p.Prompts = append(p.Prompts, probe.Prompt{ID: id, Text: id})
	}
	return p, nil
}

// runPass runs the plan with records going to a JSONL file and an
// aggregate, as drip run does — headless, or with the run screen open as a
// real Bubble Tea program (no terminal, no input, output discarded, a
// 120x40 window) that quits when the run has ended. keep, when set, also
// keeps each record's stamps.
func runPass(p probe.Plan, dir string, keep *[]streamStamps, observe func(probe.Event), tuiOn bool) (time.Duration, cpuUse, error) {
	defer p.Options.Client.CloseIdleConnections()
	w, err := record.Create(filepath.Join(dir, "records.jsonl"))
	if err != nil {
		return 0, cpuUse{}, err
	}
	defer w.Close()
	agg := stats.NewAggregate(stats.DefaultStall)
	sink := func(r *record.Record) {
		agg.Add(r)
		w.Write(r)
		if keep != nil {
			*keep = append(*keep, stampsOf(r))
		}
	}
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	defer func() {
		var ms1 runtime.MemStats
		runtime.ReadMemStats(&ms1)
		fmt.Printf("  GC: %d cycles, %.0f MiB allocated during the run\n", ms1.NumGC-ms0.NumGC, mib(float64(ms1.TotalAlloc-ms0.TotalAlloc)))
	}()
	cpu0, t0 := cpuTime(), time.Now()
	if keep != nil && (cpuProfile != "" || traceFile != "") && tuiOn == withTUI {
		stop := profile(profileAfter)
		defer stop()
	}
	if !tuiOn {
		probe.Run(context.Background(), p, sink, observe)
		return time.Since(t0), cpuTime().minus(cpu0), nil
	}
	m := tui.NewRun(context.Background(), tui.RunConfig{Plan: p, Load: "bench", Observe: observe},
		tui.Config{Sink: sink, StallMS: stats.DefaultStall, Color: true})
	prog := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(120, 40),
		tea.WithoutSignals(), tea.WithFPS(30), tea.WithFilter(func(mm tea.Model, msg tea.Msg) tea.Msg {
			if mm.(*tui.Model).RunFinished() {
				return tea.QuitMsg{}
			}
			return msg
		}))
	if _, err := prog.Run(); err != nil {
		return 0, cpuUse{}, err
	}
	m.Wait()
	fmt.Printf("  run screen: %d redraws in %.1f s\n", m.Redraws(), time.Since(t0).Seconds())
	return time.Since(t0), cpuTime().minus(cpu0), nil
}

// profile adds a CPU profile (-cpuprofile) and a runtime trace (-trace)
// of the pass from after on, one file of each per pass. The name gets the
// pass's number.
func profile(after time.Duration) (stop func()) {
	profiles++
	var recs []windowRecorder
	if cpuProfile != "" {
		recs = append(recs, windowRecorder{"CPU profile", cpuProfile, pprof.StartCPUProfile, pprof.StopCPUProfile})
	}
	if traceFile != "" {
		recs = append(recs, windowRecorder{"runtime trace", traceFile, trace.Start, trace.Stop})
	}
	done := make(chan struct{})
	started := make(chan []*os.File, 1)
	go func() {
		select {
		case <-time.After(after):
		case <-done:
			started <- nil
			return
		}
		files := make([]*os.File, len(recs))
		for i, r := range recs {
			files[i] = r.begin(fmt.Sprintf("%s.%d", r.file, profiles))
		}
		started <- files
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(done)
			for i, f := range <-started {
				if f != nil {
					recs[i].stop()
					f.Close()
					fmt.Printf("  %s from %s: %s\n", recs[i].what, after, f.Name())
				}
			}
		})
	}
	if profileFor > 0 {
		time.AfterFunc(after+profileFor, stop)
	}
	return stop
}

// windowRecorder is a profile that starts writing to a file and stops.
type windowRecorder struct {
	what, file string
	start      func(io.Writer) error
	stop       func()
}

// begin starts r writing to name, and is nil when it could not.
func (r windowRecorder) begin(name string) *os.File {
	f, err := os.Create(name)
	if err == nil {
		if err = r.start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "load: %s: %v\n", r.what, err)
		return nil
	}
	return f
}

var profiles int

// settle has both processes collect the garbage of the pass before and
// waits half a second, so every pass starts with no collection owed and
// the connections of the last one closed, as the first pass does.
func settle(base string) {
	runtime.GC()
	if resp, err := http.Get(base + "/bench/gc"); err == nil {
		resp.Body.Close()
	}
	time.Sleep(500 * time.Millisecond)
}

func timingPass(base, scenario string, n int, tuiOn bool) (string, pairReport, error) {
	settle(base)
	dir, _ := os.MkdirTemp("", "drip-load")
	defer os.RemoveAll(dir)
	p, err := plan(base, scenario, n, dir)
	if err != nil {
		return "", pairReport{}, err
	}
	srvCPU0, m0 := serverCPU(base), machineTime()
	var recs []streamStamps
	waits := watchRunQueue()
	wall, cpu, err := runPass(p, dir, &recs, nil, tuiOn)
	if err != nil {
		return "", pairReport{}, err
	}
	rq := waits()
	srvCPU := serverCPU(base).minus(srvCPU0)

	pr, err := pairing(base, scenario, recs)
	if err != nil {
		return "", pairReport{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ntiming pass: %s, %.1f s wall\n", pr.head, wall.Seconds())
	b.WriteString(pr.body)
	b.WriteString(connectWaits(recs))
	b.WriteString(witnessReads(recs))
	writeCPU(&b, "drip", rq, cpu, wall, pr.frames, srvCPU)
	b.WriteString(machineTime().since(m0))
	pr.cpu = cpu.minus(rq.cpu)
	return b.String(), pr, nil
}

// floorTiming is timingPass for the floor client, with drip's figures
// from the pass before over the floor's.
func floorTiming(base, scenario string, n int, drip pairReport) (string, pairReport, error) {
	settle(base)
	srvCPU0, cpu0, m0 := serverCPU(base), cpuTime(), machineTime()
	waits := watchRunQueue()
	streams, f, wall, err := floorPass(base, scenario, n)
	if err != nil {
		return "", pairReport{}, err
	}
	rq := waits()
	cpu, srvCPU := cpuTime().minus(cpu0), serverCPU(base).minus(srvCPU0)
	pr, err := pairing(base, scenario, stampsOfAll(floorRecords(streams, f)))
	if err != nil {
		return "", pairReport{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nfloor pass: %s, %.1f s wall\n", pr.head, wall.Seconds())
	b.WriteString(pr.body)
	b.WriteString(floorFailures(streams))
	writeCPU(&b, "floor client", rq, cpu, wall, pr.frames, srvCPU)
	b.WriteString(machineTime().since(m0))
	ratio := func(d, f *float64) string { return fmt.Sprintf("%.2f× (%.3f / %.3f ms)", *d / *f, *d, *f) }
	fmt.Fprintf(&b, "  drip/floor stamp error: p50 %s · p99 %s · max %s\n",
		ratio(drip.stamp.P50, pr.stamp.P50), ratio(drip.stamp.P99, pr.stamp.P99), ratio(drip.stamp.Max, pr.stamp.Max))
	return b.String(), pr, nil
}

// writeCPU writes a pass's run-queue waits and CPU. The run-queue sampler's
// own CPU (its thread's) is taken off, as the benchmark's, not drip's.
// Each side's CPU per frame is split into user and system (kernel) time.
// The system part is mostly the socket calls (loopback TCP's send and
// receive processing), which no change to either program's own code
// removes while each frame is its own write and read.
func writeCPU(b *strings.Builder, who string, rq runQueue, cpu cpuUse, wall time.Duration, frames int, srvCPU cpuUse) {
	fmt.Fprintf(b, "  %s's threads waiting for a core (OS run queue), ms per 100 ms: first 0.4 s %.1f · middle %.1f · last 0.4 s %.1f\n",
		who, rq.first, rq.middle, rq.last)
	cpu = cpu.minus(rq.cpu)
	fmt.Fprintf(b, "  CPU: %s %.2f s (%.0f%% of one core, %s; the run-queue sampler's %.3f s taken off)\n",
		who, cpu.total().Seconds(), 100*cpu.total().Seconds()/wall.Seconds(), cpu.perFrame(frames), rq.cpu.total().Seconds())
	fmt.Fprintf(b, "  CPU: fixture server %.2f s (%s)\n", srvCPU.total().Seconds(), srvCPU.perFrame(frames))
	both := cpu.plus(srvCPU)
	fmt.Fprintf(b, "  CPU: both %s; %.2f cores over the pass's wall time\n", both.perFrame(frames), both.total().Seconds()/wall.Seconds())
}

// connectWaits says how many streams waited for a turn to connect
// (probe.MaxConnecting) and how long, and how many failed by class.
func connectWaits(recs []streamStamps) string {
	var waits []float64
	failed := map[string]int{}
	for _, r := range recs {
		if r.connectWaitMS != nil {
			waits = append(waits, *r.connectWaitMS)
		}
		if r.errClass != "" {
			failed[r.errClass]++
		}
	}
	s := fmt.Sprintf("  connection ramp (at most %d connecting at once): %d of %d streams waited", probe.MaxConnecting, len(waits), len(recs))
	if d := stats.NewDist(waits); d.N > 0 {
		s += fmt.Sprintf(", wait p50 %.1f p99 %.1f max %.1f ms", *d.P50, *d.P99, *d.Max)
	}
	if len(failed) > 0 {
		s += fmt.Sprintf(" · failed by class %v", failed)
	}
	return s + "\n"
}

// pairReport is drip's stamps against the server's write times, a line of
// counts (head), the figures (body) and the frames paired.
type pairReport struct {
	head, body string
	frames     int
	stamp      stats.Dist
	byPhase    [3][]float64 // the stamp errors (ms) of the first 10 frames, the middle and the last 10
	cpu        cpuUse       // drip's CPU over the pass, the run-queue sampler's taken off
}

// pairs gathers the stamp, flush and gap errors of paired frames, overall
// and by position, the first 10 frames, the middle and the last 10.
type pairs struct {
	stamp, gap, flush          []float64
	byPhase, flushBy           [3][]float64
	frames, unpaired, complete int
}

// pairing pairs every content frame of recs with the server's write time
// for it (the server's log for the stream's tag, scenario#prompt id) and
// reports the stamp error, by position in the stream, the server's own
// flush span and the gap error. It forgets the server's logs.
func pairing(base, scenario string, recs []streamStamps) (pairReport, error) {
	var p pairs
	for i := 0; i < len(recs); i += 100 {
		chunk := recs[i:min(i+100, len(recs))]
		var tags []string
		for _, r := range chunk {
			tags = append(tags, scenario+"#"+r.promptID)
		}
		writes, err := fetchWrites(base, tags)
		if err != nil {
			return pairReport{}, err
		}
		for _, r := range chunk {
			p.add(r, writes[scenario+"#"+r.promptID])
		}
	}
	return p.report(len(recs)), nil
}

// add pairs one stream's content frames with the server's writes, in order.
func (p *pairs) add(r streamStamps, server []serverWrite) {
	if r.complete {
		p.complete++
	}
	k := 0
	var prevC, prevS int64
	for _, tms := range r.content {
		if k >= len(server) {
			p.unpaired++
			continue
		}
		c, sw := r.startNS+int64(tms*1e6), server[k]
		p.stamp = append(p.stamp, float64(c-sw.At)/1e6)
		p.flush = append(p.flush, float64(sw.Flushed-sw.At)/1e6)
		ph := 1
		if k < 10 {
			ph = 0
		} else if k >= len(server)-10 {
			ph = 2
		}
		p.byPhase[ph] = append(p.byPhase[ph], float64(c-sw.At)/1e6)
		p.flushBy[ph] = append(p.flushBy[ph], float64(sw.Flushed-sw.At)/1e6)
		if k > 0 {
			p.gap = append(p.gap, abs(float64((c-prevC)-(sw.At-prevS))/1e6))
		}
		prevC, prevS = c, sw.At
		p.frames++
		k++
	}
	p.unpaired += len(server) - k
}

func (p *pairs) report(streams int) pairReport {
	se, ge := stats.NewDist(p.stamp), stats.NewDist(p.gap)
	var b strings.Builder
	fmt.Fprintf(&b, "  stamp error (drip's read time − server's write time) ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n",
		*se.P50, *se.P90, *se.P99, *se.Max)
	b0, b1, b2 := stats.NewDist(p.byPhase[0]), stats.NewDist(p.byPhase[1]), stats.NewDist(p.byPhase[2])
	fmt.Fprintf(&b, "    p99 by position in the stream: first 10 frames %.3f · middle %.3f · last 10 frames %.3f\n", *b0.P99, *b1.P99, *b2.P99)
	fe, f0, f1, f2 := stats.NewDist(p.flush), stats.NewDist(p.flushBy[0]), stats.NewDist(p.flushBy[1]), stats.NewDist(p.flushBy[2])
	fmt.Fprintf(&b, "  of which the server's own flush (write time to flush returned) ms: p50 %.3f  p99 %.3f  max %.3f · p99 first 10 %.3f · middle %.3f · last 10 %.3f\n",
		*fe.P50, *fe.P99, *fe.Max, *f0.P99, *f1.P99, *f2.P99)
	fmt.Fprintf(&b, "  gap error |client gap − server gap| ms:                 p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n",
		*ge.P50, *ge.P90, *ge.P99, *ge.Max)
	head := fmt.Sprintf("%d streams (%d complete), %d content frames paired, %d unpaired", streams, p.complete, p.frames, p.unpaired)
	return pairReport{head: head, body: b.String(), frames: p.frames, stamp: se, byPhase: p.byPhase}
}

func memoryPass(base, scenario string, n int, tuiOn bool) (string, error) {
	dir, _ := os.MkdirTemp("", "drip-load")
	defer os.RemoveAll(dir)
	p, err := plan(base, scenario, n, dir)
	if err != nil {
		return "", err
	}
	var frames atomic.Int64
	observe := func(e probe.Event) {
		if e.Type == probe.EventFrames {
			frames.Add(int64(len(e.Frames)))
		}
	}
	type sample struct {
		heap, stacks float64 // bytes
		frames       int64
	}
	take := func() sample {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return sample{float64(ms.HeapAlloc), float64(ms.StackInuse), frames.Load()}
	}
	s0 := take()
	samples := make(chan [2]sample, 1)
	go func() {
		time.Sleep(2 * time.Second) // every stream connected, a few frames in
		s1 := take()
		if memProfile != "" {
			writeHeapProfile(memProfile)
		}
		time.Sleep(6 * time.Second) // 120 more frames per stream
		samples <- [2]sample{s1, take()}
	}()
	_, _, err = runPass(p, dir, nil, observe, tuiOn)
	if err != nil {
		return "", err
	}
	s := <-samples
	// Signed arithmetic, because at one stream the heap can shrink between
	// samples.
	perFrame := (s[1].heap - s[0].heap) / float64(max(s[1].frames-s[0].frames, 1))
	perStream := (s[0].heap - s0.heap - perFrame*float64(s[0].frames)) / float64(n)
	stacks := (s[0].stacks - s0.stacks) / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, "\nmemory pass (live heap after a forced GC): before %.1f MiB · at 2 s %.1f MiB (%d frames) · at 8 s %.1f MiB (%d frames)\n",
		mib(s0.heap), mib(s[0].heap), s[0].frames, mib(s[1].heap), s[1].frames)
	fmt.Fprintf(&b, "  per in-flight stream %.1f KiB of heap and %.1f KiB of goroutine stacks · per recorded frame %.0f B · peak RSS %s\n",
		perStream/1024, stacks/1024, perFrame, peakRSS())
	if n < 100 {
		fmt.Fprintf(&b, "  (at %d streams the per-stream figures are within the heap's own noise)\n", n)
	}
	return b.String(), nil
}

// serverWrite is a content write's wall-clock times at the server, just
// before its flush and as the flush returned (fixtures.Write).
type serverWrite struct{ At, Flushed int64 }

func fetchWrites(base string, tags []string) (map[string][]serverWrite, error) {
	resp, err := http.Get(base + "/bench/writes?models=" + url.QueryEscape(strings.Join(tags, ",")))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out map[string][]serverWrite
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

func serverCPU(base string) cpuUse {
	resp, err := http.Get(base + "/bench/cpu")
	if err != nil {
		return cpuUse{}
	}
	defer resp.Body.Close()
	var user, sys int64
	fmt.Fscan(resp.Body, &user, &sys)
	return cpuUse{time.Duration(user), time.Duration(sys)}
}

// runQueue is how long this process's threads waited for a core, in ms per
// 100 ms window (threads waiting at once add up), over a pass's first
// 0.4 s, its middle and its last 0.4 s.
type runQueue struct {
	first, middle, last float64
	cpu                 cpuUse // the sampler's own CPU time
}

// watchRunQueue samples the run-queue wait of this process's threads
// (/proc/self/task/*/schedstat, its second field) every 100 ms until the
// returned function is called. It tells a stamp taken late because drip
// waited for a CPU held by another process from one drip delayed itself.
func watchRunQueue() func() runQueue {
	wait := func() int64 {
		var sum int64
		tasks, _ := filepath.Glob("/proc/self/task/*/schedstat")
		for _, t := range tasks {
			b, _ := os.ReadFile(t)
			var run, waited int64
			fmt.Sscan(string(b), &run, &waited)
			sum += waited
		}
		return sum
	}
	done := make(chan chan []float64)
	var cpu cpuUse
	go func() {
		// On a thread of its own, so that thread's CPU is the sampler's.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cpu0 := threadCPU()
		var ws []float64
		prev := wait()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				w := wait()
				ws = append(ws, float64(w-prev)/1e6)
				prev = w
			case out := <-done:
				cpu = threadCPU().minus(cpu0)
				out <- ws
				return
			}
		}
	}()
	return func() runQueue {
		out := make(chan []float64)
		done <- out
		ws := <-out
		mean := func(v []float64) float64 {
			sum := 0.0
			for _, x := range v {
				sum += x
			}
			return sum / float64(max(len(v), 1))
		}
		if len(ws) < 9 {
			return runQueue{middle: mean(ws), cpu: cpu}
		}
		return runQueue{mean(ws[:4]), mean(ws[4 : len(ws)-4]), mean(ws[len(ws)-4:]), cpu}
	}
}

// cpuUse is CPU time in user space and in the kernel (system).
type cpuUse struct{ user, sys time.Duration }

func (c cpuUse) minus(d cpuUse) cpuUse { return cpuUse{c.user - d.user, c.sys - d.sys} }
func (c cpuUse) plus(d cpuUse) cpuUse  { return cpuUse{c.user + d.user, c.sys + d.sys} }
func (c cpuUse) total() time.Duration  { return c.user + c.sys }

func (c cpuUse) perFrame(frames int) string {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(max(frames, 1)) }
	return fmt.Sprintf("%.1f µs per frame: user %.1f + system %.1f", us(c.total()), us(c.user), us(c.sys))
}

// machine is the whole machine's CPU time from /proc/stat's cpu line, in
// clock ticks. It holds busy (user, nice, system, irq, softirq), idle
// (and iowait) and steal (taken by the hypervisor for other machines).
type machine struct{ busy, idle, steal int64 }

func machineTime() machine {
	b, _ := os.ReadFile("/proc/stat")
	line, _, _ := strings.Cut(string(b), "\n")
	var v [8]int64
	fmt.Sscan(strings.TrimPrefix(line, "cpu"), &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
	return machine{busy: v[0] + v[1] + v[2] + v[5] + v[6], idle: v[3] + v[4], steal: v[7]}
}

// since says how busy the machine was since m0, everything on it counted.
// A pass that keeps it busy near 100% measures the machine's capacity.
func (m machine) since(m0 machine) string {
	busy, idle, steal := m.busy-m0.busy, m.idle-m0.idle, m.steal-m0.steal
	all := float64(max(busy+idle+steal, 1))
	return fmt.Sprintf("  machine (all processes, /proc/stat): busy %.0f%% · idle %.0f%% · stolen by the hypervisor %.1f%%\n",
		100*float64(busy)/all, 100*float64(idle)/all, 100*float64(steal)/all)
}

// rusageCPU is getrusage's CPU time for who (RUSAGE_SELF, or Linux's
// RUSAGE_THREAD).
func rusageCPU(who int) cpuUse {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return cpuUse{}
	}
	return cpuUse{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}

func cpuTime() cpuUse { return rusageCPU(syscall.RUSAGE_SELF) }

func writeHeapProfile(name string) {
	f, err := os.Create(name)
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load: heap profile:", err)
	}
}

// threadCPU is the calling thread's CPU time (Linux RUSAGE_THREAD).
func threadCPU() cpuUse {
	const rusageThread = 1
	return rusageCPU(rusageThread)
}

func peakRSS() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.Join(strings.Fields(strings.TrimPrefix(l, "VmHWM:")), " ")
		}
	}
	return "?"
}

func mib(b float64) float64 { return b / (1 << 20) }

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// witnessCost gathers drip's CPU per frame with the kernel witness on and
// off, a pair of timing passes a round. The pass that runs first in a
// process costs a few percent more than the same pass run second, so odd
// rounds run the witness-off pass first: over an even number of rounds
// the order's share cancels.
type witnessCost struct {
	on, off []float64 // µs per frame, a pass each
}

// pass runs the timing pass again with the kernel witness off and prints
// the round's ratio. In odd rounds the pass already run (with) had the
// witness off and this one has it on.
func (c *witnessCost) pass(base, scenario string, n, round int, tuiOn bool, with pairReport) error {
	offFirst := round%2 == 1
	fmt.Printf("\n== round %d · %s · the kernel witness %s · load average %s", round+1, modeName(tuiOn),
		map[bool]string{true: "on", false: "off"}[offFirst], loadavg())
	noWitness = !offFirst
	t, other, err := timingPass(base, scenario, n, tuiOn)
	noWitness = false
	if err != nil {
		return err
	}
	fmt.Print(t)
	on, off := perFrame(with), perFrame(other)
	if offFirst {
		on, off = off, on
	}
	c.on, c.off = append(c.on, on), append(c.off, off)
	fmt.Printf("  witness on/off CPU per frame: %.3f× (%.1f / %.1f µs; the witness %s ran first)\n",
		on/off, on, off, map[bool]string{true: "off", false: "on"}[offFirst])
	return nil
}

// print gives the ratio of the on passes' mean to the off passes', when
// there was more than one round.
func (c *witnessCost) print() {
	if len(c.on) < 2 {
		return
	}
	mean := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	fmt.Printf("\nwitness on/off CPU per frame over %d rounds, the first pass alternated: %.3f× (%.1f / %.1f µs)\n",
		len(c.on), mean(c.on)/mean(c.off), mean(c.on), mean(c.off))
}

func perFrame(p pairReport) float64 {
	return float64(p.cpu.total().Nanoseconds()) / 1e3 / float64(max(p.frames, 1))
}

// witnessReads says how many reads the kernel witness stamped per content
// frame, and how many of them also asked the socket's TCP_INFO. Each ask
// is a system call, so the share says what the witness costs beyond
// recvmsg.
func witnessReads(recs []streamStamps) string {
	reads, asked, frames := 0, 0, 0
	for _, r := range recs {
		frames += len(r.content)
		reads += r.reads
		asked += r.asked
	}
	if reads == 0 {
		return ""
	}
	return fmt.Sprintf("  kernel witness: %.2f reads a content frame, %.0f%% of them asking TCP_INFO\n",
		float64(reads)/float64(max(frames, 1)), 100*float64(asked)/float64(reads))
}

// streamStamps is what the timing pass keeps of a record: its content
// frames' times and the counts the pass reports. drip run keeps no record
// (internal/pipeline), and the floor's harness keeps its reads as bytes,
// which the collector never scans. Kept whole, 5,000 streams' records had
// the collector scan up to a million frames a cycle, and drip paid for it.
type streamStamps struct {
	promptID      string
	startNS       int64
	complete      bool
	content       []float64 // the content frames' times, ms from the start
	connectWaitMS *float64  // the stream's wait for a turn to connect, if it waited
	errClass      string
	reads, asked  int // the kernel witness's reads, and those that asked TCP_INFO
}

func stampsOf(r *record.Record) streamStamps {
	s := streamStamps{promptID: r.PromptID, startNS: r.StartUnixNS, complete: r.Complete,
		content: make([]float64, 0, r.ContentFrames), connectWaitMS: r.ConnectWaitMS}
	for i := range r.Frames {
		if r.Frames[i].IsContent() {
			s.content = append(s.content, r.Frames[i].TMS)
		}
	}
	if r.Error != nil {
		s.errClass = r.Error.Class
	}
	if w := r.Witness; w != nil {
		s.reads = len(w.Reads)
		for _, rd := range w.Reads {
			if !rd.NoSegs {
				s.asked++
			}
		}
	}
	return s
}

func stampsOfAll(recs []*record.Record) []streamStamps {
	out := make([]streamStamps, len(recs))
	for i, r := range recs {
		out[i] = stampsOf(r)
	}
	return out
}

// warmServer has the fixture server serve n streams of the short "fast"
// scenario through the floor client before the first pass, and drops
// their write times. Cold, the server's own flush of the first 10 frames
// of whichever pass went first had a p99 of 0.30 ms at 100 streams, and
// 0.10–0.15 ms warm, so the first pass's first frames were late through
// no fault of its client.
func warmServer(base string, n int) error {
	t0 := time.Now()
	streams, f, _, err := floorPass(base, "fast", n)
	if err != nil {
		return err
	}
	// Pairing fetches the streams' write times, so the server forgets them.
	if _, err := pairing(base, "fast", stampsOfAll(floorRecords(streams, f))); err != nil {
		return err
	}
	fmt.Printf("fixture server warmed: %d streams of the fast scenario, unmeasured, %.2f s\n", n, time.Since(t0).Seconds())
	return nil
}

// floorPool gathers both clients' stamp errors by position over the
// rounds of -floor, and each round's drip/floor p99. One round's first 10
// frames are 10 bursts of writes, and a machine hiccup in one of them
// moves their p99. Pooled, each position meets the machine as often as
// the others.
//
// It keeps the errors as float32s: three rounds of 5,000 streams keep 6
// million while later passes run, 24 MB of heap.
type floorPool struct {
	drip, floor [3][]float32
	ratios      []float64
}

func (p *floorPool) add(drip, floor pairReport) {
	for i := range p.drip {
		p.drip[i] = appendFloat32s(p.drip[i], drip.byPhase[i])
		p.floor[i] = appendFloat32s(p.floor[i], floor.byPhase[i])
	}
	p.ratios = append(p.ratios, *drip.stamp.P99 / *floor.stamp.P99)
}

func appendFloat32s(dst []float32, v []float64) []float32 {
	for _, x := range v {
		dst = append(dst, float32(x))
	}
	return dst
}

// print gives the pooled figures, when there was more than one round.
func (p *floorPool) print() {
	if len(p.ratios) < 2 {
		return
	}
	var rounds []string
	for _, r := range p.ratios {
		rounds = append(rounds, fmt.Sprintf("%.2f×", r))
	}
	fmt.Printf("\nover %d rounds, pooled (ms):\n", len(p.ratios))
	drip, dripFirst := pooledLine("drip", p.drip)
	floor, floorFirst := pooledLine("floor", p.floor)
	fmt.Printf("  drip/floor stamp error p99: %.2f× pooled (first 10 frames %.2f×) · by round %s\n",
		drip/floor, dripFirst/floorFirst, strings.Join(rounds, " "))
}

// pooledLine prints one client's pooled stamp error and returns its p99,
// overall and of the first 10 frames.
func pooledLine(who string, byPhase [3][]float32) (p99, first10 float64) {
	var all []float64
	var phase [3]stats.Dist
	for i, v := range byPhase {
		f := make([]float64, len(v))
		for j, x := range v {
			f[j] = float64(x)
		}
		all = append(all, f...)
		phase[i] = stats.NewDist(f)
	}
	d := stats.NewDist(all)
	fmt.Printf("  %-5s stamp error p50 %.3f  p99 %.3f  max %.3f · p99 first 10 frames %.3f · middle %.3f · last 10 frames %.3f\n",
		who, *d.P50, *d.P99, *d.Max, *phase[0].P99, *phase[1].P99, *phase[2].P99)
	return *d.P99, *phase[0].P99
}
