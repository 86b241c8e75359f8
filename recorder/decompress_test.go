package recorder

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
		body, out, err := decompress(enc, wire.Bytes(), reads)
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
