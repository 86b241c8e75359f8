package pipeline

import (
	"errors"
	"fmt"
	"io"

	"github.com/driplab/drip/record"
)

// WriteOut writes a command's whole output b to the --out file at path,
// created private (mode 0600), or to stdout when path is empty. A failed
// write or close is exit 3.
func WriteOut(stdout io.Writer, path string, b []byte) error {
	if path == "" {
		if _, err := stdout.Write(b); err != nil {
			return Cannot(err)
		}
		return nil
	}
	f, err := record.CreatePrivate(path)
	if err != nil {
		return Cannot(fmt.Errorf("--out: %w", err))
	}
	_, err = f.Write(b)
	if err := errors.Join(err, f.Close()); err != nil {
		return Cannot(fmt.Errorf("--out: %w", err))
	}
	return nil
}

// WriteRecords writes records to a new record file at path (--out), every
// error kept.
func WriteRecords(path string, recs []*record.Record) error {
	s, err := JSONL("--out", path)
	if err != nil {
		return err
	}
	pl := ForFiles(s)
	for _, r := range recs {
		pl.Add(r)
	}
	return pl.Finish()
}
