// Package stats is the statistics over records: Derive fills a record's
// figures from its raw times, Aggregate pools records into a Summary
// (distributions, histograms, workload signals), gates judge a summary,
// Diagnose explains it. Pure functions, no I/O: it imports record, never
// net/http, so compare, report and the views need nothing of the probe.
package stats
