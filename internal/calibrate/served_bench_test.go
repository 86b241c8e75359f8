package calibrate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/calibrate"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// BenchmarkServedRecording measures how closely drip fixtures serve --from
// reproduces a recording, beside drip calibrate's own error in the same run:
// the calibrate scenario (200 frames 10 ms apart) is recorded through drip
// record's proxy from the fixture server, served back at --speed 1 and 2
// (absolute schedule, a listener with TCP_NODELAY) and read by the probe as
// drip run reads it; every iteration also streams one calibrate stream, so
// both meet the same load. in-process runs both servers in this process;
// server-proc runs each in a process of its own, as drip fixtures serve and
// drip calibrate --server-proc do. Served errors are frame by frame: the
// TTFT and each gap against the recorded ones divided by the speed. They
// split in two: how late the served server flushed each read against its
// schedule (late-p99-ms), and the served stream judged as calibrate judges
// its own, against the served server's actual flushes (dlv-gap-err-p99-ms).
// Calibrate's gap error p99 comes with a bootstrap 95 % interval
// (cal-gap-err-p99-lo-ms, -hi-ms): a served p99 at or below its upper end
// is within calibrate's error as far as these samples can tell.
//
// The sum- metrics are the comparison a user makes reading drip's report
// of the served streams beside the recording: |served TTFT p50 − recorded
// TTFT ÷ speed|, |served gap p50 − recorded gap p50 ÷ speed| and the same
// for the gap p99, to set beside calibrate's gap error p99. steal-s is the
// time the hypervisor did not run this machine's CPUs while they had work
// (/proc/stat) over the row, load-1m the load average at its end: the
// late writes follow the steal.
//
//	go test ./calibrate -run '^$' -bench ServedRecording -benchtime 10x
func BenchmarkServedRecording(b *testing.B) {
	b.Log(fixtures.RealtimeNote())
	for _, proc := range []bool{false, true} {
		b.Run(map[bool]string{false: "in-process", true: "server-proc"}[proc], func(b *testing.B) {
			fx := calibrate.InProcess()
			if proc {
				b.Setenv(childEnv, "calibrate") // calibrate.Process starts this binary as its child
				var err error
				if fx, err = calibrate.Process(context.Background(), os.Args[0], "-test.run=^$"); err != nil {
					b.Fatal(err)
				}
			}
			defer fx.Close()
			rec := recordCalibrate(b, fx.URL())
			for _, speed := range []float64{1, 2} {
				b.Run(fmt.Sprintf("speed=%g", speed), func(b *testing.B) {
					srv := startServed(b, rec, speed, proc)
					defer srv.close()
					benchServed(b, fx, srv, rec, speed)
				})
			}
		})
	}
}

// benchServed streams one calibrate stream and one served stream per
// iteration and reports both.
func benchServed(b *testing.B, fx calibrate.Server, srv *served, rec *record.Record, speed float64) {
	o := probe.Options{Client: probe.NewClient(0), StallMS: stats.DefaultStall}
	var cal, dlv calibrate.Level
	var ttftErr, gapErr, late, ttfts, gaps []float64
	var lateness fixtures.Lateness
	want := rec.Gaps()
	steal0, stealOK := machineSteal()
	for b.Loop() {
		l, err := calibrate.Run(context.Background(), fx, target(fx.URL(), calibrate.Scenario), o, 1, 1)
		if err != nil || l.Unpaired > 0 {
			b.Fatalf("calibrate: %v, %d frames unpaired", err, l.Unpaired)
		}
		cal.StampErr, cal.GapErr, cal.TTFTErr = append(cal.StampErr, l.StampErr...), append(cal.GapErr, l.GapErr...), append(cal.TTFTErr, l.TTFTErr...)
		got := probe.Stream(context.Background(), target(srv.url, calibrate.Scenario), o, &record.Record{}, nil)
		gotGaps := got.Gaps()
		if got.TTFTMS == nil || len(gotGaps) != len(want) {
			b.Fatalf("served stream: status %s, %d gaps, want %d", got.Status, len(gotGaps), len(want))
		}
		ttftErr = append(ttftErr, *got.TTFTMS-*rec.TTFTMS/speed)
		ttfts, gaps = append(ttfts, *got.TTFTMS), append(gaps, gotGaps...)
		for i, g := range gotGaps {
			gapErr = append(gapErr, math.Abs(g-want[i]/speed))
		}
		fl, err := srv.flushes()
		if err != nil {
			b.Fatal(err)
		}
		late = append(late, fl.lateness(rec, speed)...)
		dlv.Pair(got, fl.contentWrites(rec))
		lateness = fl.Lateness
	}
	if dlv.Unpaired > 0 {
		b.Fatalf("%d served frames not paired with a flush", dlv.Unpaired)
	}
	report(b, "", ttftErr, gapErr)
	report(b, "cal-", cal.TTFTErr, cal.GapErr)
	lo, hi := bootstrapP99(cal.GapErr)
	b.ReportMetric(lo, "cal-gap-err-p99-lo-ms")
	b.ReportMetric(hi, "cal-gap-err-p99-hi-ms")
	b.ReportMetric(p(cal.StampErr, 99), "cal-stamp-err-p99-ms")
	b.ReportMetric(p(dlv.GapErr, 99), "dlv-gap-err-p99-ms")
	b.ReportMetric(p(late, 99), "late-p99-ms")
	b.ReportMetric(float64(lateness.Late), "late-writes")
	b.ReportMetric(float64(lateness.Max)/1e6, "late-max-ms")
	b.ReportMetric(math.Abs(p(ttfts, 50)-*rec.TTFTMS/speed), "sum-ttft-p50-err-ms")
	b.ReportMetric(math.Abs(p(gaps, 50)-p(want, 50)/speed), "sum-gap-p50-err-ms")
	b.ReportMetric(math.Abs(p(gaps, 99)-p(want, 99)/speed), "sum-gap-p99-err-ms")
	if steal1, ok := machineSteal(); ok && stealOK {
		b.ReportMetric((steal1 - steal0).Seconds(), "steal-s")
	}
	if l, ok := loadAverage(); ok {
		b.ReportMetric(l, "load-1m")
	}
}

// machineSteal is the CPU time the hypervisor has stolen from this machine
// so far: /proc/stat's steal column, in clock ticks of 10 ms (Linux only).
func machineSteal() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	ticks, err := strconv.ParseUint(f[8], 10, 64)
	return time.Duration(ticks) * 10 * time.Millisecond, err == nil
}

// loadAverage is the 1-minute load average (Linux only).
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), " ")
	l, err := strconv.ParseFloat(first, 64)
	return l, err == nil
}

// served is a served recording, in this process or in a child (TestMain).
type served struct {
	url     string
	flushes func() (flushes, error)
	close   func()
}

func startServed(b *testing.B, rec *record.Record, speed float64, proc bool) *served {
	if !proc {
		h, err := newFlushLog(rec, speed)
		if err != nil {
			b.Fatal(err)
		}
		hs := httptest.NewUnstartedServer(h)
		hs.Listener = fixtures.NoDelay(hs.Listener)
		hs.Start()
		return &served{url: hs.URL, flushes: func() (flushes, error) { return h.last(), nil }, close: hs.Close}
	}
	path := filepath.Join(b.TempDir(), "rec.jsonl")
	w, err := record.Create(path)
	if err == nil {
		err = errors.Join(w.Write(rec), w.Close())
	}
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=served", "DRIP_BENCH_REC="+path, "DRIP_BENCH_SPEED="+fmt.Sprint(speed))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("served child: %v", err)
	}
	u := strings.TrimSpace(line)
	get := func() (flushes, error) {
		var f flushes
		resp, err := http.Get(u + flushesPath)
		if err != nil {
			return f, err
		}
		defer resp.Body.Close()
		return f, json.NewDecoder(resp.Body).Decode(&f)
	}
	return &served{url: u, flushes: get, close: func() {
		stdin.Close()
		cmd.Wait()
		// The spin at the end of each wait costs the server a core's slice.
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		n := b.N * len(rec.Exchange.Reads)
		b.Logf("served process: %s of CPU for %d reads, %s per read", cpu.Round(time.Millisecond), n, (cpu / time.Duration(max(n, 1))).Round(time.Microsecond))
	}}
}

// childEnv makes this test binary a server child instead of running tests:
// "calibrate" serves calibrate.ServeChild (for calibrate.Process), "served"
// serves DRIP_BENCH_REC at DRIP_BENCH_SPEED as drip fixtures serve --from
// does. Either serves until its stdin closes.
const childEnv = "DRIP_BENCH_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "calibrate":
		if err := calibrate.ServeChild(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "served":
		if err := serveChild(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}

func serveChild() error {
	f, err := os.Open(os.Getenv("DRIP_BENCH_REC"))
	if err != nil {
		return err
	}
	recs, _, err := record.ReadAll(f, nil)
	f.Close()
	if err != nil || len(recs) != 1 {
		return fmt.Errorf("%d records (%v), want 1", len(recs), err)
	}
	rec := recs[0]
	speed, err := strconv.ParseFloat(os.Getenv("DRIP_BENCH_SPEED"), 64)
	if err != nil {
		return err
	}
	h, err := newFlushLog(rec, speed)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET "+flushesPath, func(w http.ResponseWriter, r *http.Request) { json.NewEncoder(w).Encode(h.last()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	go func() {
		io.Copy(io.Discard, os.Stdin)
		srv.Close()
	}()
	fmt.Printf("http://%s\n", ln.Addr())
	if err := srv.Serve(fixtures.NoDelay(ln)); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

const flushesPath = "/bench/flushes"

// flushLog serves a recording and notes when the last response's request
// arrived and when each of its written reads was flushed (just before, as
// calibrate's fixture server notes its own writes): one response at a time.
type flushLog struct {
	srv *fixtures.Recorded
	mu  sync.Mutex
	f   flushes
}

// flushes is the last served response's request arrival and flush times,
// and the server's lateness count so far.
type flushes struct {
	Begin    time.Time
	At       []time.Time // per read
	Lateness fixtures.Lateness
}

func newFlushLog(rec *record.Record, speed float64) (*flushLog, error) {
	srv, err := fixtures.NewRecorded([]*record.Record{rec}, fixtures.RecordedOptions{Speed: speed})
	return &flushLog{srv: srv}, err
}

func (f *flushLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.f = flushes{Begin: time.Now()}
	f.mu.Unlock()
	f.srv.ServeHTTP(&stampingWriter{ResponseWriter: w, log: f}, r)
}

func (f *flushLog) last() flushes {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.f
	l.At = slices.Clone(l.At)
	l.Lateness = f.srv.Lateness()
	return l
}

// lateness is how late each read was flushed against its schedule, ms.
func (f flushes) lateness(rec *record.Record, speed float64) []float64 {
	var late []float64
	for i, at := range f.At {
		late = append(late, ms(at.Sub(f.Begin))-rec.Exchange.Reads[i].TMS/speed)
	}
	return late
}

// contentWrites are the flushes of the reads that carried the recording's
// content frames, as calibrate pairs a client's frames with its server's.
func (f flushes) contentWrites(rec *record.Record) []fixtures.Write {
	var w []fixtures.Write
	for _, i := range contentReads(rec) {
		if i < len(f.At) {
			w = append(w, fixtures.Write{Kind: fixtures.StepText, At: f.At[i], Begin: f.Begin})
		}
	}
	return w
}

// contentReads is, for each content frame of rec, the read it arrived in
// (the one stamped nearest to it).
func contentReads(rec *record.Record) []int {
	reads := rec.Exchange.Reads
	var idx []int
	for _, fr := range rec.Frames {
		if !fr.IsContent() {
			continue
		}
		best := 0
		for k, rd := range reads {
			if math.Abs(rd.TMS-fr.TMS) < math.Abs(reads[best].TMS-fr.TMS) {
				best = k
			}
		}
		idx = append(idx, best)
	}
	return idx
}

type stampingWriter struct {
	http.ResponseWriter
	log   *flushLog
	wrote bool // since the last flush: the headers' flush carries no read
}

func (w *stampingWriter) Write(p []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(p)
}

func (w *stampingWriter) FlushError() error {
	if w.wrote {
		w.log.mu.Lock()
		w.log.f.At = append(w.log.f.At, time.Now())
		w.log.mu.Unlock()
		w.wrote = false
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func report(b *testing.B, prefix string, ttft, gap []float64) {
	b.ReportMetric(p(ttft, 50), prefix+"ttft-err-p50-ms")
	b.ReportMetric(p(ttft, 100), prefix+"ttft-err-max-ms")
	b.ReportMetric(p(gap, 50), prefix+"gap-err-p50-ms")
	b.ReportMetric(p(gap, 99), prefix+"gap-err-p99-ms")
	b.ReportMetric(p(gap, 100), prefix+"gap-err-max-ms")
}

// bootstrapP99 is a 95 % interval for v's p99: the 2.5th and 97.5th
// percentiles of the p99s of 2,000 resamples of v (seeded, so a run's
// figures can be reproduced from its samples).
func bootstrapP99(v []float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := make([]float64, 2000)
	r := make([]float64, len(v))
	for i := range ps {
		for j := range r {
			r[j] = v[rng.IntN(len(v))]
		}
		ps[i] = p(r, 99)
	}
	return p(ps, 2.5), p(ps, 97.5)
}

func p(v []float64, pct float64) float64 {
	slices.Sort(v)
	return stats.Percentile(v, pct)
}

func target(base, model string) probe.Target {
	return probe.Target{URL: base + "/v1/chat/completions", Format: adapters.Lookup("openai-chat"), Request: adapters.Request{Model: model, Prompt: "hi"}}
}

// recordCalibrate records one calibrate stream through drip record's proxy.
func recordCalibrate(b *testing.B, upstream string) *record.Record {
	u, _ := url.Parse(upstream)
	var recs []*record.Record
	proxy := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error { recs = append(recs, r); return nil })
	ps := httptest.NewServer(proxy)
	defer ps.Close()
	got := probe.Stream(context.Background(), target(ps.URL, calibrate.Scenario), probe.Options{}, &record.Record{}, nil)
	proxy.Wait()
	if len(recs) != 1 || got.Status != record.StatusComplete || recs[0].Exchange == nil || recs[0].TTFTMS == nil {
		b.Fatalf("%d records through the proxy, client %s", len(recs), got.Status)
	}
	return recs[0]
}
