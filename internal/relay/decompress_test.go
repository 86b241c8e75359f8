package relay

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/driplab/drip/record"
)

// testExchange is an exchange at the given bounds, for its bookkeeping,
// with the whole default bound on responses in flight to itself.
func testExchange(maxBytes, maxFrames int) *exchange {
	p := &Proxy{o: Options{MaxBytes: maxBytes, MaxFrames: maxFrames}}
	p.responses.give(maxResponsesInFlight)
	return &exchange{p: p, x: &record.Exchange{}}
}

type flushWriter interface {
	io.WriteCloser
	Flush() error
}

// Each decoded piece carries the time of the upstream read that completed
// it, also for brotli, which reads its input in chunks: three events, each
// compressed, flushed and read at its own time, decode to three pieces at
// those times.
func TestDecompressStampsEachPieceWithItsRead(t *testing.T) {
	events := []string{"data: one\n\n", "data: two\n\n", "data: three\n\n"}
	for enc, newW := range map[string]func(io.Writer) flushWriter{
		"gzip":    func(w io.Writer) flushWriter { return gzip.NewWriter(w) },
		"deflate": func(w io.Writer) flushWriter { return zlib.NewWriter(w) },
		"br":      func(w io.Writer) flushWriter { return brotli.NewWriter(w) },
	} {
		var wire bytes.Buffer
		z := newW(&wire)
		var reads []record.Read
		for i, ev := range events {
			n := wire.Len()
			z.Write([]byte(ev))
			z.Flush()
			if i == len(events)-1 {
				z.Close()
			}
			reads = append(reads, record.Read{TMS: float64(10 * (i + 1)), N: wire.Len() - n})
		}
		body, out, err := testExchange(1<<20, 100).decompress(enc, wire.Bytes(), reads)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if string(body) != strings.Join(events, "") {
			t.Errorf("%s: decoded %q", enc, body)
		}
		got := map[float64]string{}
		for i, p := range split(body, out) {
			got[out[i].TMS] += string(p)
		}
		for i, ev := range events {
			if at := float64(10 * (i + 1)); got[at] != ev {
				t.Errorf("%s: decoded at %v ms: %q, want %q (all: %v)", enc, at, got[at], ev, got)
			}
		}
	}
}

// A gzip bomb (a few KiB decoding to MiBs) is decoded only up to
// --max-bytes, and the exchange is marked clipped, as a raw body past it is.
func TestDecompressKeepsNoMoreThanMaxBytesDecoded(t *testing.T) {
	const maxBytes = 64 << 10
	wire := gzipped(bytes.Repeat([]byte("data: x\n\n"), 4<<20/9))
	if len(wire) >= maxBytes {
		t.Fatalf("the bomb is %d bytes compressed, want under --max-bytes %d", len(wire), maxBytes)
	}
	e := testExchange(maxBytes, 100)
	body, out, err := e.decompress("gzip", wire, []record.Read{{TMS: 5, N: len(wire)}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range out {
		n += r.N
	}
	if len(body) != maxBytes || n != len(body) || !e.x.Clipped {
		t.Errorf("decoded %d bytes in reads of %d, clipped %v; want %d, the same, clipped", len(body), n, e.x.Clipped, maxBytes)
	}
}

// One upstream read decoding to more pieces than the frame bound is kept
// as one read: no more reads than keep kept.
func TestDecompressHoldsNoMoreReadsThanCame(t *testing.T) {
	plain := bytes.Repeat([]byte("data: x\n\n"), 10*readBufferSize/9)
	wire := gzipped(plain)
	body, out, err := testExchange(1<<20, 3).decompress("gzip", wire, []record.Read{{TMS: 5, N: len(wire)}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range out {
		n += r.N
	}
	if !bytes.Equal(body, plain) || len(out) != 1 || n != len(plain) || out[0].TMS != 5 {
		t.Errorf("decoded %d of %d bytes in %d reads %v; want all in one, at 5 ms", len(body), len(plain), len(out), out)
	}
}

// The read keep merged the rest into is found again among the decoded
// reads, one before it decoding to nothing (the gzip header alone).
func TestDecompressFindsTheMergedRead(t *testing.T) {
	var wire bytes.Buffer
	z := gzip.NewWriter(&wire)
	var ends []int
	for _, ev := range []string{"data: one\n\n", "data: two\n\n", "data: three\n\n"} {
		z.Write([]byte(ev))
		z.Flush()
		ends = append(ends, wire.Len())
	}
	z.Close()
	reads := []record.Read{{TMS: 1, N: 10}, {TMS: 2, N: ends[0] - 10}, {TMS: 3, N: ends[1] - ends[0]}, {TMS: 4, N: wire.Len() - ends[1]}}
	e := testExchange(1<<20, 3)
	e.mergedReads, e.merged = true, 3
	_, out, err := e.decompress("gzip", wire.Bytes(), reads)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || e.merged != 2 || out[2].TMS != 4 {
		t.Errorf("decoded reads %v, merged at %d; want 3 reads, the merged one at 2, at 4 ms", out, e.merged)
	}
}

// At --max-frames 1, a first read holding the gzip header alone decodes to
// nothing: all that is decoded comes from the merged read, and none of its
// frames, all at the last read's time, is kept.
func TestDecompressFindsTheMergedReadAfterAHeaderAlone(t *testing.T) {
	wire := gzipped([]byte("data: one\n\ndata: two\n\n"))
	reads := []record.Read{{TMS: 1, N: 10}, {TMS: 3, N: len(wire) - 10}}
	e := testExchange(1<<20, 1)
	e.mergedReads, e.merged = true, 1
	_, out, err := e.decompress("gzip", wire, reads)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || e.merged != 0 || out[0].TMS != 3 {
		t.Errorf("decoded reads %v, merged at %d; want 1 read, the merged one at 0, at 3 ms", out, e.merged)
	}
}

// The frame bound reached in the reads before the merged one is named as
// the frame bound, not as reads past it.
func TestFrameBoundBeforeTheMergedReadIsNamed(t *testing.T) {
	ev := "data: {}\n\n"
	body := []byte(strings.Repeat(ev, 5))
	reads := []record.Read{{TMS: 1, N: 3 * len(ev)}, {TMS: 2, N: len(ev)}, {TMS: 3, N: len(ev)}}
	e := testExchange(1<<20, 2)
	e.rec, e.x.ContentType = &record.Record{}, "text/event-stream"
	e.mergedReads, e.merged = true, 2
	err := e.decodeFrames(body, reads)
	if err == nil || err.Class != record.ErrLimit || !strings.Contains(err.Message, "stopped after 2 frames") || len(e.rec.Frames) != 2 {
		t.Errorf("error %+v, %d frames; want the frame bound named, 2 frames", err, len(e.rec.Frames))
	}
}
