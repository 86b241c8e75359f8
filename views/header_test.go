package views

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
)

// TestHeaderKeepsTheScenario: at 80 columns drip demo's status line cut
// the scenario it names ("scenario buffer…", "n: n…") or lost it behind a
// long error message; it drops the hint the help bar repeats, then the
// end of the message, and keeps the scenario whole.
func TestHeaderKeepsTheScenario(t *testing.T) {
	st := NewStyles(true, false)
	failed := &record.Record{Status: record.StatusFailed, DurationMS: 274,
		Error: &record.Error{Class: record.ErrReset, Message: "read tcp 127.0.0.1:39320->127.0.0.1:46631: read: connection reset by peer"}}
	for _, tc := range []struct {
		name  string
		r     *record.Record
		note  string
		wants []string
	}{
		{"buffered", replay(t, "buffered-burst", 0), "scenario buffered-burst · n: next scenario", []string{"done ", "buffered", "· scenario buffered-burst"}},
		{"no end marker", replay(t, "no-end-marker", 0), "scenario no-end-marker · n: next scenario", []string{"incomplete (no end marker)", "· scenario no-end-marker"}},
		{"failed", failed, "scenario abort-midstream · n: next scenario", []string{"failed: reset — read tcp", "…", "· scenario abort-midstream"}},
		{"fits", replay(t, "steady", 0), "scenario steady · n: next scenario", []string{"· scenario steady · n: next scenario"}},
	} {
		line := ansi.Strip(Header(&Stream{Run: 1, Phase: PhaseDone, Record: tc.r}, tc.note, 80, 1, &st))
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("%s: %d columns: %q", tc.name, w, line)
		}
		for _, want := range tc.wants {
			if !strings.Contains(line, want) {
				t.Errorf("%s: %q lacks %q", tc.name, line, want)
			}
		}
		if strings.HasSuffix(strings.TrimRight(line, " "), "…") {
			t.Errorf("%s: the note is cut: %q", tc.name, line)
		}
	}
}

// TestHeaderKeepsTheEndpoint: a long URL on the stream's and the run's
// second header line was cut at its end ("…/deployments/gpt-4o-mini-20…"),
// losing the path that names the endpoint. The format goes first, then
// the URL is cut in its middle: its host and its path's end stay, and the
// model after it.
func TestHeaderKeepsTheEndpoint(t *testing.T) {
	st := NewStyles(true, false)
	const azure = "https://my-resource-name.openai.azure.com/openai/deployments/gpt-4o-mini-2024-07-18/chat/completions?api-version=2024-08-01-preview"
	const bedrock = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1:0/invoke-with-response-stream"
	for _, tc := range []struct {
		name, url, format, model string
		width                    int
		wants                    []string
	}{
		{"azure", azure, "openai-chat", "gpt-4o-mini", 80, []string{"target https://my-resource-name.openai.azure.com…completions · model gpt-4o-mini"}},
		{"azure", azure, "openai-chat", "gpt-4o-mini", 120, []string{"https://my-resource-name.openai.azure.com…/gpt-4o-mini-2024-07-18/chat/completions · model gpt-4o-mini"}},
		{"bedrock", bedrock, "bedrock", "claude-3-5-sonnet", 120, []string{"https://bedrock-runtime.us-east-1.amazonaws.com…/invoke-with-response-stream · model claude-3-5-sonnet"}},
		{"bedrock", bedrock, "bedrock", "claude-3-5-sonnet", 80, []string{"target bedrock-runtime.us…/invoke-with-response-stream · model claude-3-5-sonnet"}},
		{"local", "http://127.0.0.1:8089/v1/chat/completions", "openai-chat", "steady", 80, []string{"target http://127.0.0.1:8089/v1/chat/completions · model steady"}},
		{"local", "http://127.0.0.1:8089/v1/chat/completions", "openai-chat", "steady", 120, []string{"target http://127.0.0.1:8089/v1/chat/completions · format openai-chat · model steady"}},
	} {
		r := &record.Record{Target: tc.url, Format: tc.format, Model: tc.model, Status: record.StatusComplete, DurationMS: 900}
		screens := map[string]string{
			"stream": Header(&Stream{Run: 1, Phase: PhaseDone, Record: r}, "", tc.width, 2, &st),
			"run":    RunHeader(&RunSnapshot{Target: tc.url, Format: tc.format, Model: tc.model, State: RunDone}, "", tc.width, 2, &st),
		}
		for screen, out := range screens {
			lines := strings.Split(ansi.Strip(out), "\n")
			line := strings.TrimRight(lines[len(lines)-1], " ")
			if w := ansi.StringWidth(line); w > tc.width {
				t.Errorf("%s %s at %d: %d columns: %q", screen, tc.name, tc.width, w, line)
			}
			for _, want := range tc.wants {
				if !strings.Contains(line, want) {
					t.Errorf("%s %s at %d: %q lacks %q", screen, tc.name, tc.width, line, want)
				}
			}
		}
	}
}

// TestElideURLKeepsWhatFits: where the host did not fit with its scheme,
// the scheme went but what was left was cut at both ends even when it
// fitted whole, so the two ends overlapped ("x/comple…letions").
func TestElideURLKeepsWhatFits(t *testing.T) {
	for _, tc := range []struct {
		url   string
		width int
		want  string
	}{
		{"http://x/completions", 16, "x/completions"},
		{"https://averylonghostname.example.com", 35, "averylonghostname.example.com"},
		{"https://averylonghostname.example.com", 20, "averylongh…ample.com"},
		{"http://127.0.0.1:8089/v1/chat/completions", 80, "http://127.0.0.1:8089/v1/chat/completions"},
		// Too narrow for 8 cells of host and "completions": a short host
		// stays whole (it read "localhost:…pletions").
		{"http://localhost:18947/v1/chat/completions", 19, "localhost:18947…"},
		{"http://localhost:18947/v1/chat/completions", 20, "localhost:18947…ions"},
	} {
		got := ElideURL(tc.url, tc.width)
		if got != tc.want {
			t.Errorf("ElideURL(%q, %d) = %q, want %q", tc.url, tc.width, got, tc.want)
		}
		if w := ansi.StringWidth(got); w > tc.width {
			t.Errorf("ElideURL(%q, %d) = %q: %d columns", tc.url, tc.width, got, w)
		}
	}
}

// TestHeaderCutsAMessageAtAWord: an error message too long for the status
// line ends on a whole word and "…" ("Please try…"), with a note or none
// (drip view's: it was cut at the width, "requests. Pl…").
func TestHeaderCutsAMessageAtAWord(t *testing.T) {
	st := NewStyles(true, false)
	limited := &record.Record{Status: record.StatusFailed, DurationMS: 2, Error: &record.Error{Class: record.ErrHTTP429,
		Message: "HTTP 429: Rate limit reached for requests. Please try again in 2s."}}
	for _, note := range []string{"", "scenario rate-limited"} {
		line := strings.TrimRight(ansi.Strip(Header(&Stream{Run: 3, Phase: PhaseDone, Record: limited}, note, 80, 1, &st)), " ")
		head, _, _ := strings.Cut(line, "…")
		words := strings.Fields(limited.Error.Message)
		if w := strings.Fields(head); len(w) == 0 || !slices.Contains(words, w[len(w)-1]) || !strings.Contains(line, "failed: http_429 — HTTP 429: Rate limit") {
			t.Errorf("note %q: the message is not cut after a whole word: %q", note, line)
		}
		if ansi.StringWidth(line) > 80 {
			t.Errorf("note %q: %d columns: %q", note, ansi.StringWidth(line), line)
		}
	}
}

// TestElideURLsKeepsTargetsApart: a run that sent to two endpoints has
// the target "A, B"; cut as one URL it read as one (the first's host
// before the second's path). Each is cut on its own, or counted.
func TestElideURLsKeepsTargetsApart(t *testing.T) {
	two := "http://127.0.0.1:18947/v1/chat/completions, http://127.0.0.1:18947/v1/messages"
	for _, tc := range []struct {
		width int
		want  string
	}{
		{200, two},
		// Each its half: the second whole, the first to its host and path's end.
		{70, "http://127.0.0.1:18947…completions, http://127.0.0.1:18947/v1/messages"},
		// Halves would cut a host: the first, and the other counted.
		{50, "http://127.0.0.1:18947…/chat/completions, +1 more"},
	} {
		got := ElideURLs(two, tc.width)
		if got != tc.want {
			t.Errorf("ElideURLs at %d = %q, want %q", tc.width, got, tc.want)
		}
		if w := textfmt.Width(got); w > tc.width {
			t.Errorf("ElideURLs at %d: %d columns", tc.width, w)
		}
	}
}
