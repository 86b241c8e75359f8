// Package probe is the instrument: it sends a streaming request, stamps every
// read of the body with a monotonic clock, decodes frames through an adapter
// and keeps them in a record.Record. It owns the I/O: HTTP, the runner and
// workload plans, record files, prompts. Statistics over records are in
// package stats.
package probe
