package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/userfile"
	"github.com/driplab/drip/stats"
)

// summaryFile is a --summaries input, read whole.
var summaryFile = userfile.Kind{What: "a summary", Limit: 64 << 20}

// MergeFiles merges the record files at paths into the record file out
// (drip merge) and says on stderr what it merged. A file without a record
// is exit 3 (a host that recorded nothing), runs that cannot be one run
// exit 2.
func MergeFiles(paths []string, out string, stderr io.Writer) error {
	inputs, err := pipeline.ReadAll(paths, paths, stderr)
	if errors.Is(err, pipeline.ErrNoRecords) {
		return pipeline.Cannot(fmt.Errorf("%w: a host that recorded nothing; leave the file out to merge the others", err))
	}
	if err != nil {
		return err
	}
	recs, err := MergeRecords(inputs)
	if err != nil {
		return pipeline.Usage("%v", err)
	}
	if err := pipeline.WriteRecords(out, recs); err != nil {
		return err
	}
	writeNotes(stderr, inputs, recs, out)
	return nil
}

// MergeSummaryFiles pools the drip run --json summaries at paths (drip
// merge --summaries), writes the pooled one to out, stdout when empty,
// and says on stderr what it merged.
// A file that cannot be read is exit 2, one that opens but is no summary
// exit 3 (as a record file that does not parse), summaries that cannot be
// pooled exit 2.
func MergeSummaryFiles(ctx context.Context, paths []string, out string, stdout, stderr io.Writer) error {
	sums := make([]stats.Summary, len(paths))
	for i, p := range paths {
		b, err := userfile.Read(ctx, p, summaryFile, nil)
		if err != nil {
			return pipeline.Usage("--summaries %v", err)
		}
		if sums[i], err = ReadSummary(b, sanitize.Line(p)); err != nil {
			return pipeline.Cannot(err)
		}
	}
	m, err := MergeSummaries(sums, paths)
	if err != nil {
		return pipeline.Usage("%v", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		// MergeSummaries refuses every number known to end here. This
		// names the files should another.
		return pipeline.Usage("--summaries %s: the merged summary holds a number JSON cannot: %v", sanitize.Line(strings.Join(paths, ", ")), err)
	}
	if err := pipeline.WriteOut(stdout, out, append(b, '\n')); err != nil {
		return err
	}
	into := out
	if into == "" {
		into = "stdout"
	}
	hosts, merged := m.Workload.Hosts, fmt.Sprintf("%d summaries", len(paths))
	if len(paths) == 1 {
		merged = "1 summary"
	}
	fmt.Fprintf(stderr, "drip: merged %s (%s, %s: %s) into %s\n", merged,
		stats.Count(m.Streams.Attempted, "stream"), stats.Count(len(hosts), "host"), sanitize.Line(strings.Join(hosts, ", ")), sanitize.Line(into))
	return nil
}
