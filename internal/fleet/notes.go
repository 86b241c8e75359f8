package fleet

import (
	"fmt"
	"io"
	"strings"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// writeNotes says on w what drip merge did once merged is written to out.
// It names the records, files and hosts merged. It names each input that
// holds no completed stream, so a host that sent nothing good is not
// hidden in the merged counts. It names each setting the inputs differ in
// that a merge allows.
func writeNotes(w io.Writer, inputs []compare.Input, merged []*record.Record, out string) {
	hosts := Hosts(merged)
	fmt.Fprintf(w, "drip: merged %s from %s (%s: %s) into %s\n",
		stats.Count(len(merged), "record"), stats.Count(len(inputs), "file"), stats.Count(len(hosts), "host"), strings.Join(hosts, ", "), out)
	for _, in := range inputs {
		sum := compare.Summarize(in)
		if none := compare.NoneCompleted(&sum); none != "" {
			fmt.Fprintf(w, "drip: note: %s: %s\n", sanitize.Line(in.Source), none)
		}
	}
	for _, d := range compare.MergeNotes(inputs) {
		parts := make([]string, len(d.Values))
		for i, v := range d.Values {
			parts[i] = sanitize.Line(inputs[i].Source) + " = " + sanitize.Line(v)
		}
		fmt.Fprintf(w, "drip: note: the files differ in %s (%s): the merged run's figures come from each\n",
			d.Setting, strings.Join(parts, "; "))
	}
}
