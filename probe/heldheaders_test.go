package probe_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// A server that sends its headers with its first content (as Ollama
// does) leaves the TTFT split unknown; the path's round trip is then the
// client's kernel's, taken at the headers, which no server's wait is in.
func TestHeldHeadersTakeThePathsRoundTripFromTheKernel(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, sseFrame("Hello")+sseFrame(" there")+sseFrame(" now")+"data: [DONE]\n\n") // one write: headers and all
	}))
	defer srv.Close()
	rec := streamTCP(t, srv.URL+"/v1/chat/completions", probe.Options{})
	if rec.TTFTPathUnknown != record.PathHeadersWithContent {
		// A machine that read the body a millisecond after the headers
		// splits TTFT at them, and needs no kernel's round trip.
		if rec.TTFTPathMS == nil || rec.TTFTPathRTTMS != nil {
			t.Errorf("split: path %s, kernel rtt %s; want the path's share and no rtt beside it", num(rec.TTFTPathMS), num(rec.TTFTPathRTTMS))
		}
		return
	}
	if rec.Witness == nil || len(rec.Witness.TCP) == 0 || rec.Witness.TCP[0].At != record.TCPAtHeaders {
		t.Fatalf("witness %+v: want TCP figures at the headers", rec.Witness)
	}
	if want := rec.Witness.TCP[0].RTTMS; rec.TTFTPathRTTMS == nil || *rec.TTFTPathRTTMS != want || want <= 0 {
		t.Errorf("ttft_path_rtt_ms %s, want the kernel's rtt at the headers, %v ms", num(rec.TTFTPathRTTMS), want)
	}
}

// Every stream of a run is witnessed, as a single stream is: Run sets
// the clock before each stream's defaults, and the stream is still on
// the wall clock the kernel stamps by.
func TestRunWitnessesEveryStream(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, sseFrame("Hello")+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	u, f, err := probe.ResolveURL(srv.URL+"/v1/chat/completions", "auto")
	if err != nil {
		t.Fatal(err)
	}
	var recs []*record.Record
	probe.Run(context.Background(), probe.Plan{Target: probe.Target{URL: u, Format: f}, Runs: 2}, func(r *record.Record) { recs = append(recs, r) }, nil)
	for _, r := range recs {
		if r.Witness == nil || len(r.Witness.TCP) == 0 {
			t.Errorf("stream %d of a run: witness %+v, want the kernel's account", r.Seq, r.Witness)
		}
	}
}
