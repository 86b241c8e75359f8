package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/htmlreport"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// HTML is the --html report file (internal/htmlreport). It is created
// before anything is measured, so a path that cannot be written fails
// first, and written once the figures are known. Its mode is 0600, as a
// record file's is, because it holds the streams' text. A nil *HTML writes
// nothing.
type HTML struct {
	f    *os.File
	recs []*record.Record // from its Sink, for the streams' timelines and panels
}

// Sink keeps every record for the report's timelines and panels. A run's
// aggregate keeps figures, not records.
func (h *HTML) Sink() Sink {
	return Sink{Name: "--html", Write: func(r *record.Record) error {
		h.recs = append(h.recs, r)
		return nil
	}, Close: h.Close}
}

// OpenHTML creates the report file at path.
func OpenHTML(path string) (*HTML, error) {
	f, err := record.CreatePrivate(path)
	if err != nil {
		return nil, Cannot(fmt.Errorf("--html: %w", err))
	}
	return &HTML{f: f}, nil
}

// Close closes the file, written or not (a command that failed first
// leaves it empty).
func (h *HTML) Close() error {
	if h == nil || h.f == nil {
		return nil
	}
	err := h.f.Close()
	h.f = nil
	return err
}

// write renders the report into the file and closes it.
func (h *HTML) write(render func(io.Writer) error) error {
	if h == nil {
		return nil
	}
	bw := bufio.NewWriter(h.f)
	err := render(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

// run writes a run's report with its summary, the records its Sink kept
// and a sweep's levels.
func (h *HTML) run(s *stats.Summary, sw *sweep.Result) error {
	return h.write(func(w io.Writer) error {
		return htmlreport.WriteRun(w, htmlreport.Run{Summary: s, Records: h.recs, Sweep: sw})
	})
}

// Comparison writes the report of runs side by side (compare, replay),
// with a sweep's levels for compare --by level. It is exit 3 when it cannot.
func (h *HTML) Comparison(c *compare.Comparison) error {
	err := h.write(func(w io.Writer) error {
		return htmlreport.WriteComparison(w, c)
	})
	if err != nil {
		return Cannot(err)
	}
	return nil
}
