package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/testenv"
)

// tmuxPane is the real binary on a real terminal: a tmux server and
// session of its own (its own socket: a server shared between tests
// exits when one's last session is killed, failing the next one's
// new-session), 120×40, read back with capture-pane.
type tmuxPane struct {
	t            *testing.T
	tmux, socket string
	name         string
}

// run runs a tmux command on the pane's own server.
func (p *tmuxPane) run(args ...string) ([]byte, error) {
	return exec.Command(p.tmux, append([]string{"-S", p.socket, "-f", os.DevNull}, args...)...).CombinedOutput()
}

func newTmuxPane(t *testing.T, args ...string) *tmuxPane {
	t.Helper()
	p := &tmuxPane{t: t, tmux: testenv.LookPath(t, "tmux", "apt-get install tmux"), socket: filepath.Join(t.TempDir(), "tmux"), name: "drip"}
	bin := builtDrip(t)
	// The shell stays after drip ends, so its last output can be read.
	cmd := fmt.Sprintf("%s %s; echo EXIT=$?; sleep 600", bin, strings.Join(args, " "))
	if out, err := p.run("new-session", "-d", "-x", "120", "-y", "40", "-s", p.name, "-e", "NO_COLOR=1", "sh", "-c", cmd); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { p.run("kill-server") })
	return p
}

// capture is the pane with its scrollback.
func (p *tmuxPane) capture() string {
	out, err := p.run("capture-pane", "-p", "-S", "-500", "-t", p.name)
	if err != nil {
		p.t.Fatalf("tmux capture-pane: %v\n%s", err, out)
	}
	return string(out)
}

// waitFor polls the pane until it shows s, failing after a minute (a
// loaded machine; the screens show in a second or two).
func (p *tmuxPane) waitFor(s string) string {
	p.t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if c := p.capture(); strings.Contains(c, s) {
			return c
		}
	}
	p.t.Fatalf("the pane never showed %q:\n%s", s, p.capture())
	return ""
}

func (p *tmuxPane) keys(k string) {
	if out, err := p.run("send-keys", "-t", p.name, k); err != nil {
		p.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// TestScreensPrintTheirSummaryOnQuit: on a real terminal, drip view and
// drip compare print their summary once q closes the screen (they printed
// nothing), so the figures stay in the scrollback; a tour of the demo's
// scenarios prints one table, a row per scenario (356 lines before).
func TestScreensPrintTheirSummaryOnQuit(t *testing.T) {
	t.Parallel()
	t.Run("view", func(t *testing.T) {
		p := newTmuxPane(t, "view", recordFile("stall.jsonl"))
		p.waitFor("file stall.jsonl")
		p.keys("q")
		out := p.waitFor("EXIT=0")
		for _, want := range []string{"\nttft ", "\ngap ", "stalls"} {
			if !strings.Contains(out, want) {
				t.Errorf("drip view printed no summary on quit (no %q):\n%s", want, out)
			}
		}
	})
	t.Run("compare", func(t *testing.T) {
		p := newTmuxPane(t, "compare", recordFile("stall.jsonl"), recordFile("steady.jsonl"))
		p.waitFor("drip compare · 2 runs")
		p.keys("q")
		out := p.waitFor("EXIT=0")
		if !strings.Contains(out, "stall.jsonl") || !strings.Contains(out, "ttft p50") || strings.Count(out, "steady.jsonl") < 2 {
			t.Errorf("drip compare printed no comparison on quit:\n%s", out)
		}
	})
	t.Run("demo", func(t *testing.T) {
		p := newTmuxPane(t, "demo")
		p.waitFor("scenario mid-sentence-stall")
		// The first run done before n: on a loaded machine an n that beats the
		// first run's start makes both runs the next scenario's.
		p.waitFor("done")
		p.keys("n")
		p.waitFor("scenario buffered-burst")
		p.waitFor("done")
		p.keys("q")
		out := p.waitFor("EXIT=0")
		_, table, _ := strings.Cut(out, "model ")
		rows := strings.Split(strings.TrimSpace(table), "\n")
		if !strings.Contains(rows[0], "complete  failed  ttft p50") || len(rows) != 4 ||
			!strings.HasPrefix(rows[1], "mid-sentence-stall  1/1") || !strings.HasPrefix(rows[2], "buffered-burst      1/1") || !strings.Contains(rows[1], " ms ") {
			t.Errorf("the demo's tour did not end in a table of its two scenarios:\n%s", out)
		}
		for _, row := range []string{"model " + rows[0], rows[1], rows[2]} { // Cut took the head's first word
			if ansi.StringWidth(row) > 80 {
				t.Errorf("a row of the demo's table is over 80 columns, so it wraps on an 80-column terminal: %q", row)
			}
		}
	})
}

// A screen quit with q when every stream failed ends with exit 3 and the
// server's words, as the same streams headless do (it ended 0).
func TestScreenOfFailedStreamsExits3(t *testing.T) {
	t.Parallel()
	p := newTmuxPane(t, "demo", "rate-limited")
	p.waitFor("http_429")
	p.keys("q")
	out := p.waitFor("EXIT=")
	if !strings.Contains(out, "EXIT=3") || !strings.Contains(out, "most often http_429: HTTP 429: Rate limit reached") {
		t.Errorf("drip demo rate-limited quit with q did not end with exit 3 and the server's words:\n%s", out)
	}
}
