package adapters

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// chatStream builds a realistic OpenAI chat completion stream in the exact
// chunk shape of FORMATS §2.1: a role chunk, n content chunks of one to three
// words, a finish chunk, a usage chunk and [DONE]. It returns the wire bytes
// and the byte offsets at which each event ends.
func chatStream(n int) (wire []byte, ends []int) {
	const head = `data: {"id":"chatcmpl-ADxFKtX6xIwdWRN42QvBj2u1RZpCK","object":"chat.completion.chunk","created":1727889370,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_f85bea6784","choices":[`
	words := strings.Fields(`The quick brown fox jumps over the lazy dog while a stream of
		tokens arrives from the server, each one stamped with the time of the read that
		carried it; "quoted" text, tabs\tand unicode — héllo wörld 你好 — all appear here.`)
	var sb strings.Builder
	add := func(s string) {
		sb.WriteString(s)
		ends = append(ends, sb.Len())
	}
	add(head + `{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	w := 0
	for i := range n {
		var text strings.Builder
		for range 1 + i%3 {
			text.WriteString(" " + words[w%len(words)])
			w++
		}
		add(head + `{"index":0,"delta":{"content":` + benchJSONString(text.String()) + `},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	}
	add(head + `{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	add(head + fmt.Sprintf(`],"usage":{"prompt_tokens":8,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`, 2*n, 2*n+8) + "\n\n")
	add("data: [DONE]\n\n")
	return []byte(sb.String()), ends
}

func benchJSONString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\t':
			sb.WriteString(`\t`)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// eventReads splits wire into one read per event.
func eventReads(wire []byte, ends []int) [][]byte {
	reads := make([][]byte, 0, len(ends))
	prev := 0
	for _, e := range ends {
		reads = append(reads, wire[prev:e])
		prev = e
	}
	return reads
}

// sizedReads splits wire into reads of size bytes (the last one shorter).
func sizedReads(wire []byte, size int) [][]byte {
	var reads [][]byte
	for len(wire) > size {
		reads = append(reads, wire[:size])
		wire = wire[size:]
	}
	return append(reads, wire)
}

const benchContentChunks = 1000

func BenchmarkOpenAIDecode(b *testing.B) {
	wire, ends := chatStream(benchContentChunks)
	for _, bc := range []struct {
		name  string
		reads [][]byte
	}{
		{"event-per-read", eventReads(wire, ends)},
		{"4KiB-reads", sizedReads(wire, 4096)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dst := make([]Frame, 0, 64)
			text := 0 // content text bytes per pass
			decodeAll := func() (frames, content int) {
				text = 0
				d := NewOpenAIDecoder(0)
				var err error
				for _, r := range bc.reads {
					dst, err = d.Feed(dst[:0], r)
					if err != nil {
						b.Fatal(err)
					}
					frames += len(dst)
					for i := range dst {
						if dst[i].Kind == KindContent {
							content++
							text += len(dst[i].Text)
						}
					}
				}
				if dst, err = d.Close(dst[:0]); err != nil || len(dst) != 0 {
					b.Fatalf("Close: %d frames, %v", len(dst), err)
				}
				return frames, content
			}
			frames, content := decodeAll()
			if content != benchContentChunks || frames != benchContentChunks+4 {
				b.Fatalf("decoded %d frames (%d content), want %d (%d)", frames, content, benchContentChunks+4, benchContentChunks)
			}
			allocs := testing.AllocsPerRun(10, func() { decodeAll() })
			allocBytes := bytesPerRun(10, func() { decodeAll() })
			b.SetBytes(int64(len(wire)))
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
			b.ReportMetric(float64(runs*content)/(ns/1e9), "content-frames/s")
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
			b.ReportMetric(allocBytes/float64(content), "alloc-B/content")
			b.ReportMetric(float64(text)/float64(content), "text-B/content")
		})
	}
}

// bytesPerRun is testing.AllocsPerRun for bytes: the heap bytes one call
// of f allocates, averaged over runs calls after a warm-up call, on one
// thread as AllocsPerRun does.
func bytesPerRun(runs int, f func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// BenchmarkSSELineEndings parses the same stream with LF, CRLF and CR line
// endings, in 4 KiB reads and as one 1 MiB-plus read: the cost per event must
// not grow with the read size (a CR-only body has no LF to stop a scan).
func BenchmarkSSELineEndings(b *testing.B) {
	wire, _ := chatStream(benchContentChunks)
	for _, le := range []struct{ name, eol string }{{"LF", "\n"}, {"CRLF", "\r\n"}, {"CR", "\r"}} {
		body := bytes.ReplaceAll(wire, []byte("\n"), []byte(le.eol))
		for _, rd := range []struct {
			name  string
			reads [][]byte
		}{{"4KiB-reads", sizedReads(body, 4096)}, {"one-read", [][]byte{body}}} {
			b.Run(le.name+"/"+rd.name, func(b *testing.B) {
				events := 0
				s := &SSE{Classify: func(dst []Frame, ev *Event) []Frame { events++; return dst }}
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					*s = SSE{Classify: s.Classify}
					for _, r := range rd.reads {
						if _, err := s.Feed(nil, r); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			})
		}
	}
}
