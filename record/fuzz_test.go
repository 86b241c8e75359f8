package record_test

import (
	"bytes"
	"testing"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Seed corpora are in testdata/fuzz/<target> (kept small: the fuzzer
// minimizes every new input, and a 10 KB record takes it a minute).

// FuzzReadRecords: whatever a record file holds, reading it never panics,
// and what it accepts drip can write and read back to the same streams.
func FuzzReadRecords(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, skipped, err := record.ReadAll(bytes.NewReader(data), stats.Rederive)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := record.NewWriter(&buf)
		for _, r := range recs {
			if r.V != record.RecordVersion {
				t.Fatalf("accepted a record of version %d", r.V)
			}
			if err := w.Write(r); err != nil {
				t.Fatalf("a record read from a file cannot be written: %v", err)
			}
		}
		again, skipped2, err := record.ReadAll(&buf, stats.Rederive)
		if err != nil || len(skipped2) > 0 || len(again) != len(recs) {
			t.Fatalf("written back: %d records (skipped %v, %v), want %d (first read skipped %d)", len(again), skipped2, err, len(recs), len(skipped))
		}
		for i := range recs {
			if a, b := recs[i], again[i]; a.Status != b.Status || a.ContentFrames != b.ContentFrames || len(a.Stalls) != len(b.Stalls) {
				t.Fatalf("record %d read back as %s/%d frames/%d stalls, was %s/%d/%d", i, b.Status, b.ContentFrames, len(b.Stalls), a.Status, a.ContentFrames, len(a.Stalls))
			}
		}
	})
}
