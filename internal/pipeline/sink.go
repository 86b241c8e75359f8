package pipeline

import (
	"fmt"
	"sync"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/record"
)

// Sink is one place records go as each ends, such as a record file, a CSV
// or an exporter. A new exporter is a new Sink (docs/architecture.md).
type Sink struct {
	Name  string // the flag it serves, e.g. "--out", which errors name
	Write func(*record.Record) error
	Close func() error
}

// JSONL creates the record file at path (JSON Lines, mode 0600).
func JSONL(name, path string) (Sink, error) {
	w, err := record.Create(path)
	if err != nil {
		return Sink{}, Cannot(fmt.Errorf("%s: %w", name, err))
	}
	return Sink{Name: name, Write: w.Write, Close: w.Close}, nil
}

// CSV creates the CSV file at path (mode 0600), its header written.
func CSV(name, path string) (Sink, error) {
	f, err := record.CreatePrivate(path)
	if err != nil {
		return Sink{}, Cannot(fmt.Errorf("%s: %w", name, err))
	}
	c, err := report.NewCSV(f)
	if err != nil {
		f.Close()
		return Sink{}, Cannot(fmt.Errorf("%s: %w", name, err))
	}
	return Sink{Name: name, Write: c.Write, Close: f.Close}, nil
}

// AttachFiles opens the record file (--out, JSON Lines) and the CSV
// (--csv) at their paths as sinks, none for an empty path. On a failure
// the sinks attached so far are closed.
func (p *Pipeline) AttachFiles(out, csv string) error {
	for _, f := range []struct {
		path string
		open func(name, path string) (Sink, error)
		name string
	}{{out, JSONL, "--out"}, {csv, CSV, "--csv"}} {
		if f.path == "" {
			continue
		}
		s, err := f.open(f.name, f.path)
		if err != nil {
			p.Close()
			return err
		}
		p.Attach(s)
	}
	return nil
}

// Shared lets several pipelines write one sink (one --csv for several
// targets). Writes take turns. It is closed once, by whichever pipeline
// closes first, and the others get the same error.
func Shared(s Sink) Sink {
	var (
		mu   sync.Mutex
		once sync.Once
		err  error
	)
	return Sink{
		Name:  s.Name,
		Write: func(r *record.Record) error { mu.Lock(); defer mu.Unlock(); return s.Write(r) },
		Close: func() error { once.Do(func() { err = s.Close() }); return err },
	}
}
