package adapters_test

import (
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
)

// benchFormat measures decode+classify for a format over the fixture
// server's "long" scenario (5,000 content frames) as that format's encoder
// writes it, one flush per read: ns, allocations and frames per second, per
// frame decoded, and the bytes allocated per content frame beside the text
// it carries (the record's one copy of it: the two should be close).
func benchFormat(b *testing.B, format string) {
	f := adapters.Lookup(format)
	reads, _, err := fixtures.Render(format, fixtures.Lookup("long"), "bench-model")
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, r := range reads {
		size += len(r)
	}
	dst := make([]adapters.Frame, 0, 64)
	text := 0 // content text bytes per pass
	decodeAll := func() (frames, content int) {
		text = 0
		d := f.NewDecoder(0)
		var err error
		for _, r := range reads {
			if dst, err = d.Feed(dst[:0], r); err != nil {
				b.Fatal(err)
			}
			frames += len(dst)
			for i := range dst {
				if dst[i].Kind == adapters.KindContent {
					content++
					text += len(dst[i].Text)
				}
			}
		}
		if dst, err = d.Close(dst[:0]); err != nil {
			b.Fatal(err)
		}
		return frames + len(dst), content
	}
	frames, content := decodeAll()
	if content != 5000 && format != "raw" {
		b.Fatalf("%d content frames, want 5000", content)
	}
	allocs := testing.AllocsPerRun(3, func() { decodeAll() })
	allocBytes := adapters.BytesPerRun(3, func() { decodeAll() })
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	runs := 0
	for b.Loop() {
		decodeAll()
		runs++
	}
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/float64(runs*frames), "ns/frame")
	b.ReportMetric(allocs/float64(frames), "allocs/frame")
	b.ReportMetric(float64(runs*frames)/(ns/1e9), "frames/s")
	b.ReportMetric(allocBytes/float64(content), "alloc-B/content")
	b.ReportMetric(float64(text)/float64(content), "text-B/content")
}
