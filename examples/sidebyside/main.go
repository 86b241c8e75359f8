// Command sidebyside puts two or more recorded runs side by side with
// drip's packages. It shows what a Go program outside drip's module can do
// with record, stats, compare and views. It reads record files as drip
// run --out writes them, compares them against the first, draws the
// comparison's header as drip compare's screen does and prints the table
// drip compare prints.
//
//	go run ./sidebyside main.jsonl pr.jsonl
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// run compares the record files args names and writes the comparison on w.
func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("sidebyside", flag.ContinueOnError)
	width := fs.Int("width", 100, "the header's width in columns")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return errors.New("give two or more record files, the baseline first")
	}
	inputs := make([]compare.Input, fs.NArg())
	for i, path := range fs.Args() {
		recs, err := readRecords(path)
		if err != nil {
			return err
		}
		inputs[i] = compare.Input{Label: filepath.Base(path), Source: path, Records: recs}
	}
	c, err := compare.New(inputs, compare.Options{})
	if err != nil {
		return err
	}
	st := views.Styles{} // the zero value draws plain text
	fmt.Fprintln(w, views.CompareHeader(c, *width, 4, &st))
	fmt.Fprintln(w)
	compare.Text(w, c)
	return nil
}

// readRecords reads one record file and derives each record's figures
// again from its frames, as drip does for a file it is given.
func readRecords(path string) ([]*record.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, _, err := record.ReadAll(f, stats.Rederive)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}
