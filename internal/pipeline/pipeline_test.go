package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// record is a finished measured stream with a response.
func finished(seq int) *record.Record {
	return &record.Record{V: record.RecordVersion, RunID: "r", Seq: seq, Phase: record.PhaseMeasure, PromptID: probe.DefaultPromptID,
		Status: record.StatusComplete, Complete: true, HTTPStatus: 200}
}

// exitCode is the code an error carries to main (0 for nil).
func exitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err != nil {
		return -1
	}
	return ExitOK
}

// A record file that cannot be written (/dev/full: every write fails
// with ENOSPC) fails the report with exit 3, its summary printed, the
// sink named; the first failed write stops the source.
func TestFailedWriteIsExit3(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	s, err := JSONL("--out", "/dev/full")
	if err != nil {
		t.Fatal(err)
	}
	p := New(stats.DefaultStall, nil)
	p.Attach(s)
	ctx := p.StopOnWriteError(t.Context())
	p.Add(finished(0))
	if ctx.Err() == nil {
		t.Error("the source was not stopped at the failed write")
	}
	var stdout, stderr bytes.Buffer
	err = p.Report(&stdout, &stderr, Run{Stats: &stats.RunStats{}, JSON: true})
	if exitCode(err) != ExitCannot || !strings.Contains(err.Error(), "writing records: --out:") || !strings.Contains(err.Error(), "no space") {
		t.Errorf("exit %d (%v), want 3 naming --out and the disk", exitCode(err), err)
	}
	if !strings.Contains(stdout.String(), `"attempted": 1`) {
		t.Errorf("no summary of what was measured:\n%s", stdout.String())
	}
}

// A sink whose Close fails (a file system that reports the lost data
// only then, an exporter that cannot shut down) fails the command too.
func TestFailedCloseIsExit3(t *testing.T) {
	flaky := Sink{Name: "--metrics-addr", Write: func(*record.Record) error { return nil }, Close: func() error { return errors.New("shutdown: timed out") }}
	for name, finish := range map[string]func(*Pipeline) error{
		"report": func(p *Pipeline) error {
			return p.Report(new(bytes.Buffer), new(bytes.Buffer), Run{Stats: &stats.RunStats{}})
		},
		"session": func(p *Pipeline) error { return p.ReportSession(new(bytes.Buffer), new(bytes.Buffer), Session{}) },
		"finish":  func(p *Pipeline) error { return p.Finish() },
	} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		file, err := JSONL("--out", path)
		if err != nil {
			t.Fatal(err)
		}
		p := New(stats.DefaultStall, nil)
		p.KeepRecords()
		p.Attach(file, flaky)
		p.Add(finished(0))
		err = finish(p)
		if exitCode(err) != ExitCannot || !strings.Contains(err.Error(), "--metrics-addr: shutdown: timed out") {
			t.Errorf("%s: exit %d (%v), want 3 naming the sink", name, exitCode(err), err)
		}
		if b, _ := os.ReadFile(path); bytes.Count(b, []byte("\n")) != 1 {
			t.Errorf("%s: the good sink lost its record:\n%s", name, b)
		}
	}
}

// Records of several targets go each to its own file and all to one
// shared CSV, closed once.
func TestTargetsFileEachRecordUnderItsTarget(t *testing.T) {
	dir := t.TempDir()
	ts, err := NewTargets([]string{"a", "b"}, stats.DefaultStall, filepath.Join(dir, "w.jsonl"), filepath.Join(dir, "w.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ts.Bind("ra", 0)
	ts.Bind("rb", 1)
	for i, id := range []string{"ra", "rb", "rb"} {
		r := finished(i)
		r.RunID = id
		ts.Add(r)
	}
	var stdout, stderr bytes.Buffer
	if err := ts.Report(&stdout, &stderr, nil, func(int, *record.Record) stats.Workload { return stats.Workload{} }); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]int{"w-A.jsonl": 1, "w-B.jsonl": 2, "w.csv": 4} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if n := bytes.Count(b, []byte("\n")); n != want {
			t.Errorf("%s: %d lines, want %d", f, n, want)
		}
	}
	if !strings.Contains(stderr.String(), "1 records written to "+filepath.Join(dir, "w-A.jsonl")) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
