package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// The floor client is the least a Go client can do to stamp a stream, a
// raw TCP socket per stream, an HTTP/1.0 request written by hand (so the
// body comes unchunked and ends when the server closes), each read stamped
// with the wall clock as it returns and appended to one buffer, nothing
// else on the read path. Its connections take turns as drip's do
// (probe.MaxConnecting). After the pass, drip's decoder turns each
// stream's reads into frames, so they pair with the server's writes
// exactly as drip's records do. drip's stamp error over the floor's, in
// the same run, is drip's own share.

// floorStream is one stream's reads. data holds them end to end, ends[i]
// is where read i ends, and at[i] is its wall-clock time (ns).
type floorStream struct {
	id      string
	startNS int64
	data    []byte
	ends    []int
	at      []int64
	err     error
}

// floorPass runs n floor streams at once against base (prompt ids s0 …
// s(n-1), as plan's), and returns them with their format and the wall
// time they took. Their decoding is left to records, outside the pass.
func floorPass(base, scenario string, n int) ([]floorStream, *adapters.Format, time.Duration, error) {
	u, f, err := probe.ResolveURL(base, "openai-chat")
	if err != nil {
		return nil, nil, 0, err
	}
	pu, err := url.Parse(u)
	if err != nil {
		return nil, nil, 0, err
	}
	turns := make(chan struct{}, probe.MaxConnecting)
	streams := make([]floorStream, n)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range streams {
		s := &streams[i]
		s.id = fmt.Sprintf("s%d", i)
		body, err := f.Body(adapters.Request{Model: scenario, Prompt: s.id})
		if err != nil {
			return nil, nil, 0, err
		}
		req := fmt.Appendf(nil, "POST %s HTTP/1.0\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			pu.RequestURI(), pu.Host, len(body), body)
		wg.Go(func() { s.run(pu.Host, req, turns) })
	}
	wg.Wait()
	return streams, f, time.Since(t0), nil
}

// floorRecords decodes the floor's streams into records.
func floorRecords(streams []floorStream, f *adapters.Format) []*record.Record {
	recs := make([]*record.Record, len(streams))
	for i := range streams {
		recs[i] = streams[i].record(f)
	}
	return recs
}

// floorFailures says how many floor streams failed, by what (the
// operation and the system's error, without the addresses).
func floorFailures(streams []floorStream) string {
	failed := map[string]int{}
	for i := range streams {
		if err := streams[i].err; err != nil {
			var op *net.OpError
			if errors.As(err, &op) {
				failed[op.Op+": "+op.Err.Error()]++
			} else {
				failed[err.Error()]++
			}
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return fmt.Sprintf("  floor streams failed: %v\n", failed)
}

func (s *floorStream) run(addr string, req []byte, turns chan struct{}) {
	turns <- struct{}{}
	conn, err := net.Dial("tcp", addr)
	<-turns
	if err != nil {
		s.err = err
		return
	}
	defer conn.Close()
	s.startNS = time.Now().UnixNano()
	if _, s.err = conn.Write(req); s.err != nil {
		return
	}
	buf := make([]byte, 16<<10)
	for {
		k, err := conn.Read(buf)
		now := time.Now().UnixNano()
		if k > 0 {
			s.data = append(s.data, buf[:k]...)
			s.ends, s.at = append(s.ends, len(s.data)), append(s.at, now)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			return
		}
	}
}

// record decodes the stream's body, read by read, into a record stamped
// with the floor's read times.
func (s *floorStream) record(f *adapters.Format) *record.Record {
	rec := &record.Record{PromptID: s.id, StartUnixNS: s.startNS}
	head := bytes.Index(s.data, []byte("\r\n\r\n"))
	if s.err != nil || head < 0 {
		return rec
	}
	var reads [][]byte
	var times []float64
	from := head + 4
	for i, end := range s.ends {
		if end > from {
			reads = append(reads, s.data[from:end])
			times = append(times, float64(s.at[i]-s.startNS)/1e6)
			from = end
		}
	}
	probe.Replay(f, reads, times, stats.DefaultStall, rec) // an error leaves it incomplete
	return rec
}
