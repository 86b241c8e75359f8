// Package probe is the instrument: it sends streaming requests to an LLM
// endpoint, stamps every read of the body with a monotonic clock, decodes
// the frames through an adapter and keeps them in a record.Record.
//
// Stream sends one request and returns its record, never an error: a
// failure is data in the record, its class named. A Target says what to
// ask (the endpoint URL and its adapters.Format, which ResolveURL picks
// for a URL, and the request); Options how (timeouts, limits, a Clock, a
// Dial for an in-memory network, TLS), the zero value usable. observe
// sees each stream's Events as it unfolds, for a live view.
//
// Run carries out a Plan: warmup streams, then the measured ones as a
// closed loop (ClosedLoop: N in flight) or an open loop (OpenLoop paced by
// a Pacer: constant or Poisson arrivals, or recorded offsets), with an
// admission limit and every arrival's schedule lag sampled; each record
// goes to a sink as it ends, the run's own figures come back as
// stats.RunStats. Replay decodes recorded reads without a socket.
//
// What becomes of records is elsewhere: package stats derives and
// aggregates them into a summary and gates it, package record writes and
// reads record files.
package probe
