package compare_test

import (
	"strings"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// pathRecords are synth's records with their headers at headers ms (the
// path's round trip) and every third stream's fifth gap longer by tail ms
// (a chunk the path held).
func pathRecords(t *testing.T, host string, n int, headers, ttft, gap, tail float64) []*record.Record {
	recs := hostRecords(t, host, n, ttft, gap, nil)
	for i, r := range recs {
		r.HeadersMS = &headers
		if i%3 == 0 && tail > 0 {
			for j := 5; j < len(r.Frames); j++ {
				r.Frames[j].TMS += tail
			}
			r.DurationMS += tail
		}
		if err := stats.Derive(r, stats.DefaultStall); err != nil {
			t.Fatal(err)
		}
	}
	return recs
}

// TestNetworkPathReading: headers and TTFT moving together while the
// server's part holds reads network-path with the round trip's figure,
// never queue or "server slower"; a wait after the headers stays queue.
func TestNetworkPathReading(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                  string
		bHeaders, bTTFT, bGap float64
		tail                  float64
		want                  []string
		not                   []string
	}{
		{"path delay", 41, 240, 25, 0, []string{"network-path:", "headers p50 moved +40 ms", "about 40 ms", "the gaps held"}, []string{"queue:", "server is slower"}},
		{"path delay and held chunks", 41, 240, 25, 200, []string{"network-path:", "gap p99 rose", "jitter or loss"}, []string{"queue:", "server is slower"}},
		{"path delay, slower gaps", 41, 240, 40, 0, []string{"network-path:", "gap p50 moved too"}, []string{"queue:", "server is slower"}},
		{"server queue", 1, 400, 25, 0, []string{"queue:"}, []string{"network-path"}},
		{"server queue behind a path", 41, 440, 25, 0, []string{"queue:"}, []string{"network-path"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compareHosts(t, pathRecords(t, "b", 12, tc.bHeaders, tc.bTTFT, tc.bGap, tc.tail), pathRecords(t, "a", 12, 1, 200, 25, 0))
			v := c.Readings[0].Verdict
			for _, w := range tc.want {
				if !strings.Contains(v, w) {
					t.Errorf("verdict %q lacks %q\n%+v", v, w, c.Readings[0].Clocks)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(v, n) {
					t.Errorf("verdict %q says %q", v, n)
				}
			}
		})
	}
}

// A path that got shorter reads network-path too, and says the round trip
// shrank by the move's size, never that it "grew by about -40 ms".
func TestNetworkPathReadingOfAShorterPath(t *testing.T) {
	t.Parallel()
	v := compareHosts(t, pathRecords(t, "b", 12, 1, 200, 25, 0), pathRecords(t, "a", 12, 41, 240, 25, 0)).Readings[0].Verdict
	if !strings.Contains(v, "headers p50 moved -40 ms") || !strings.Contains(v, "the round trip on the path shrank by about 40 ms") || strings.Contains(v, "grew") {
		t.Errorf("verdict %q, want the round trip shrank by about 40 ms", v)
	}
}

// compareHosts compares host b's records with host a's, grouped by host
// as drip compare --by host does.
func compareHosts(t *testing.T, b, a []*record.Record) *compare.Comparison {
	t.Helper()
	groups, err := compare.GroupBy([]compare.Input{{Source: "all.jsonl", Records: append(b, a...)}}, "host")
	if err != nil {
		t.Fatal(err)
	}
	c, err := compare.New(groups, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
