// Package stats is the statistics over records, pure functions with no
// I/O.
//
// Derive fills a record's figures from its frames' times (TTFT, first
// event, gaps and stalls, ITL, tokens, the delivery, the status).
// Rederive does it again for a record read back from a file
// (record.ReadAll(f, stats.Rederive)). An Aggregate pools records as
// they end into a Summary. The summary holds every metric of the Registry
// as a Dist (an undefined value is nil, never 0), histograms that merge
// across hosts, the streams' accounting and workload signals. ParseGate
// reads a gate such as "ttft.p95 > 800ms" and Gate.Eval judges a summary
// with it. An SLO counts goodput, and Diagnose explains a summary with
// named rules. BootstrapDiff draws the interval of a difference between
// two sides' percentiles, resampling whole streams, as drip compare and a
// sweep's knee judge noise.
//
// It imports record, never net/http, so a program that only reads
// records needs nothing of the probe.
package stats
