// Package calibrate measures drip's own timestamp error on this machine.
// It streams a known schedule from the fixture server, pairs every frame
// drip stamped with the time the server flushed it, and judges whether the
// machine had the cores to make that a measure of drip at all.
package calibrate

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Scenario is the fixture scenario calibrate streams, 200 frames 10 ms apart.
const Scenario = "calibrate"

// Level is one concurrency level's pairing of client stamps with server
// writes, and the load the machine was under meanwhile.
type Level struct {
	Concurrency, Streams, Frames, Unpaired int
	StampErr                               []float64 // drip's read time − the server's flush time per frame, ms
	GapErr                                 []float64 // |client gap − server gap|, ms
	// TTFTErr is drip's TTFT − the server's (request arrival to the first
	// content flush), ms. It is the request's trip plus the first stamp's
	// error.
	TTFTErr []float64
	// ClientCPU is drip's CPU per frame (the in-process server's with it).
	// ServerCPU is the separate server process's, nil in-process. Nil where
	// the system does not say.
	ClientCPU, ServerCPU *time.Duration
	Load                 Load
}

// Run streams c concurrent calibrate streams, rounds times, from srv.
func Run(ctx context.Context, srv Server, t probe.Target, o probe.Options, c, rounds int) (Level, error) {
	l := Level{Concurrency: c}
	m, err := startMeter(srv)
	if err != nil {
		return l, err
	}
	for r := range rounds {
		recs := make([]*record.Record, c)
		var wg sync.WaitGroup
		for i := range c {
			wg.Go(func() {
				tt := t
				tt.Request.Model = fmt.Sprintf("%s#c%d-r%d-s%d", Scenario, c, r, i)
				recs[i] = probe.Stream(ctx, tt, o, &record.Record{Seq: i}, nil)
			})
		}
		wg.Wait()
		for _, rec := range recs {
			writes, err := srv.Writes(rec.Model)
			if err != nil {
				return l, err
			}
			l.Streams++
			l.Pair(rec, writes)
		}
	}
	return l, m.stop(&l)
}

// Pair pairs the i-th content frame drip stamped with the server's i-th
// content write. Both sides are read as wall-clock instants, which two
// processes on one machine share.
func (l *Level) Pair(rec *record.Record, writes []fixtures.Write) {
	var server []fixtures.Write
	for _, w := range writes {
		if w.Kind.IsContent() {
			server = append(server, w)
		}
	}
	start := rec.Start.UnixNano()
	var prevC, prevS int64
	i := 0
	for _, f := range rec.Frames {
		if !f.IsContent() {
			continue
		}
		if i >= len(server) {
			l.Unpaired++
			continue
		}
		client := start + int64(f.TMS*float64(time.Millisecond))
		at := server[i].At.UnixNano()
		l.StampErr = append(l.StampErr, ms(client-at))
		if i == 0 {
			l.TTFTErr = append(l.TTFTErr, ms(client-start)-ms(at-server[i].Begin.UnixNano()))
		} else {
			l.GapErr = append(l.GapErr, abs(ms(client-prevC)-ms(at-prevS)))
		}
		prevC, prevS = client, at
		l.Frames++
		i++
	}
	l.Unpaired += len(server) - i
}

// meter takes a level's CPU and schedule lag, client and server.
type meter struct {
	srv       Server
	began     time.Time
	cpu0      *time.Duration
	machine0  *cpuStat
	clientLag func() stats.Dist
}

func startMeter(srv Server) (*meter, error) {
	if _, err := srv.Usage(); err != nil { // restarts the server's lag watch
		return nil, err
	}
	return &meter{srv: srv, began: time.Now(), cpu0: processCPU(), machine0: readCPUStat(), clientLag: probe.SchedLag()}, nil
}

func (m *meter) stop(l *Level) error {
	wall := time.Since(m.began)
	su, err := m.srv.Usage()
	if err != nil {
		return err
	}
	ld := Load{Cores: runtime.NumCPU(), ClientLag: m.clientLag(), ServerLag: su.Lag}
	client := since(m.cpu0, processCPU())
	drip := client
	if su.Separate {
		l.ServerCPU = perFrame(su.CPU, l.Frames)
		drip = sum(client, su.CPU)
	}
	l.ClientCPU = perFrame(client, l.Frames)
	if drip != nil && wall > 0 {
		ld.DripCores = new(float64(*drip) / float64(wall))
	}
	ld.MachineCores = busyCores(m.machine0, readCPUStat(), ld.Cores)
	l.Load = ld
	return nil
}

func since(a, b *time.Duration) *time.Duration {
	if a == nil || b == nil {
		return nil
	}
	return new(*b - *a)
}

func sum(a, b *time.Duration) *time.Duration {
	if a == nil || b == nil {
		return nil
	}
	return new(*a + *b)
}

func perFrame(d *time.Duration, frames int) *time.Duration {
	if d == nil || frames == 0 {
		return nil
	}
	return new(*d / time.Duration(frames))
}

func ms(ns int64) float64 { return float64(ns) / float64(time.Millisecond) }

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
