package compare_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/driplab/drip/compare"
)

// TestWriteWritesTheFormAsked shows Write prints what Text, JSON and
// Markdown print, each for its form.
func TestWriteWritesTheFormAsked(t *testing.T) {
	t.Parallel()
	c, err := compare.New(load(t, "steady.jsonl", "stall.jsonl"), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		form  compare.Format
		write func(io.Writer, *compare.Comparison)
	}{
		{compare.FormatText, compare.Text},
		{compare.FormatMarkdown, compare.Markdown},
		{compare.FormatJSON, func(w io.Writer, c *compare.Comparison) { _ = compare.JSON(w, c) }},
	} {
		var got, want bytes.Buffer
		if err := compare.Write(&got, c, tc.form); err != nil {
			t.Fatal(err)
		}
		tc.write(&want, c)
		if got.String() != want.String() || got.Len() == 0 {
			t.Errorf("Write in form %d printed %d bytes, not the %d its writer prints", tc.form, got.Len(), want.Len())
		}
	}
}
