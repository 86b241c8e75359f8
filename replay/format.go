package replay

import (
	"fmt"
	"strconv"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// formatWatch decodes a replayed stream in its recorded format and, on the
// side, reads its first bytes as drip record read the recorded stream's
// (adapters.Detector): a stream that ends without the recorded format's
// end marker can then say which format the server spoke instead.
type formatWatch struct {
	inner   adapters.Decoder
	det     *adapters.Detector
	scratch []adapters.Frame
}

// watchFormat is f, its decoder watched; nil for adapters.Auto, which
// detects the format itself (the probe knows it by identity).
func watchFormat(f *adapters.Format) (*adapters.Format, *formatWatch) {
	if f == adapters.Auto {
		return f, nil
	}
	w := &formatWatch{}
	g := *f
	g.NewDecoder = func(limit int) adapters.Decoder {
		w.inner, w.det = f.NewDecoder(limit), adapters.NewDetector("", limit)
		return w
	}
	return &g, w
}

func (w *formatWatch) Feed(dst []adapters.Frame, p []byte) ([]adapters.Frame, error) {
	dst, err := w.inner.Feed(dst, p)
	if w.det.Format() == nil { // the detector decides within its first 64 KiB
		w.scratch, _ = w.det.Feed(w.scratch[:0], p)
	}
	return dst, err
}

func (w *formatWatch) Close(dst []adapters.Frame) ([]adapters.Frame, error) {
	if w.det.Format() == nil {
		w.det.Close(nil) // decides on what came
	}
	return w.inner.Close(dst)
}

// explain gives a replayed stream that ended incomplete, with no error,
// the reason when its bytes were another format than the recorded one: a
// decode error saying which, so the user is told rather than left with an
// incomplete stream and no reason.
func (w *formatWatch) explain(rec *record.Record, recorded string) {
	if w == nil || w.det == nil || rec.Error != nil || rec.Status != record.StatusIncomplete || rec.FirstByteMS == nil {
		return
	}
	spoke := w.det.Format()
	if spoke == nil || spoke.Name == recorded {
		return
	}
	as := "in " + spoke.Name
	if spoke.Name == "raw" {
		as = "in no format drip knows (read as raw bytes)"
	}
	rec.Error = &record.Error{Class: record.ErrDecode, Message: fmt.Sprintf(
		"the server answered %s, not in %s as recorded, so no %s end marker came: replay against a server that speaks %s", as, recorded, recorded, recorded)}
	stats.Derive(rec, rec.StallMS) // failed, as the record read back derives it
}
