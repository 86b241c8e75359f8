package adapters

import "testing"

func TestDetect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ct string
		data     []byte
		want     string
	}{
		{"openai chat", "text/event-stream", testdataFile(t, "detect_openai_chat.sse"), "openai-chat"},
		{"legacy completions", "text/event-stream", testdataFile(t, "openai_completions_legacy.sse"), "openai-completions"},
		{"responses", "text/event-stream", testdataFile(t, "responses_reasoning.sse"), "openai-responses"},
		{"anthropic", "text/event-stream; charset=utf-8", testdataFile(t, "anthropic_text.sse"), "anthropic"},
		{"tgi", "text/event-stream", testdataFile(t, "tgi.sse"), "tgi"},
		{"gemini", "text/event-stream", testdataFile(t, "gemini.sse"), "gemini"},
		{"unknown sse", "text/event-stream", []byte("data: hello\n\n"), "sse"},
		{"ollama chat", "application/x-ndjson", testdataFile(t, "ollama_chat.ndjson"), "ollama-chat"},
		{"ollama generate", "application/x-ndjson", testdataFile(t, "ollama_generate.ndjson"), "ollama-generate"},
		{"unknown ndjson", "application/x-ndjson", []byte("{\"x\":1}\n"), "ndjson"},
		{"converse", "application/vnd.amazon.eventstream", eventStreamFile(t, "bedrock_converse.events"), "bedrock-converse"},
		{"invoke", "application/vnd.amazon.eventstream", eventStreamFile(t, "bedrock_invoke.events"), "bedrock-invoke"},
		{"sse without its type", "application/octet-stream", testdataFile(t, "anthropic_text.sse"), "anthropic"},
		{"ndjson without its type", "", testdataFile(t, "ollama_chat.ndjson"), "ollama-chat"},
		{"event stream without its type", "", eventStreamFile(t, "bedrock_invoke.events"), "bedrock-invoke"},
		{"plain text", "text/plain", []byte("Once upon a time"), "raw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{len(tc.data), 1} {
				d := NewDetector(tc.ct, 0)
				ref, _ := decodeReads(Lookup(tc.want).NewDecoder(0), [][]byte{tc.data})
				got, err := decodeReads(d, splitReads(tc.data, size))
				if d.Format() == nil || d.Format().Name != tc.want {
					t.Fatalf("%d-byte reads: detected %v, want %s", size, d.Format(), tc.want)
				}
				if err != nil || (len(got) != len(ref) && tc.want != "raw") { // raw: a frame per read
					t.Errorf("%d-byte reads: %d frames (%v), the %s decoder gives %d", size, len(got), err, tc.want, len(ref))
				}
			}
		})
	}
}

// Detection holds no frame back: the first event's frames come out of the
// read that completed it.
func TestDetectDoesNotDelay(t *testing.T) {
	t.Parallel()
	d := NewDetector("text/event-stream", 0)
	data := testdataFile(t, "anthropic_text.sse")
	end := firstEventEnd(data)
	frames, err := d.Feed(nil, data[:end])
	if err != nil || len(frames) != 1 || frames[0].Kind != KindRole {
		t.Errorf("first event: %v %v, want its role frame at once", frames, err)
	}
}

func TestForHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"api.anthropic.com":                       "anthropic",
		"generativelanguage.googleapis.com:443":   "gemini",
		"bedrock-runtime.us-east-1.amazonaws.com": "bedrock-converse",
		"localhost:11434":                         "ollama-chat",
		"localhost:8000":                          "",
	} {
		f, got := ForHost(host), ""
		if f != nil {
			got = f.Name
		}
		if got != want {
			t.Errorf("ForHost(%q) = %q, want %q", host, got, want)
		}
	}
}

// TestDetectedTextOneCopy: detection reads the first bytes where they lie
// and hands the same slice on, so a stream auto-detected from its first
// read allocates what its decoder alone does, not a copy of that read as
// well (it did: the first frames' text was copied twice).
func TestDetectedTextOneCopy(t *testing.T) {
	read := testdataFile(t, "detect_openai_chat.sse")
	for len(read) < 16<<10 {
		read = append(read, testdataFile(t, "detect_openai_chat.sse")...)
	}
	f := Lookup("openai-chat")
	direct := bytesPerRun(50, func() { feedOnce(f.NewDecoder(0), read) })
	detected := bytesPerRun(50, func() { feedOnce(NewDetector("text/event-stream", 0), read) })
	t.Logf("a first read of %d bytes: %.0f bytes allocated detected, %.0f by the decoder alone", len(read), detected, direct)
	if extra := detected - direct; extra >= float64(len(read))/2 {
		t.Errorf("a detected first read of %d bytes allocates %.0f bytes, the decoder alone %.0f: %.0f more, a copy of the read",
			len(read), detected, direct, extra)
	}
}

func feedOnce(d Decoder, read []byte) {
	frames, _ := d.Feed(nil, read)
	frameSink = frames
}

var frameSink []Frame
