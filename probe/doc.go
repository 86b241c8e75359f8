// Package probe is the instrument. It sends streaming requests to an LLM
// endpoint, stamps every read of the body with a monotonic clock, decodes
// the frames through an adapter and keeps them in a record.Record.
//
// Stream sends one request and returns its record, never an error. A
// failure is data in the record, its class named. A Target says what to
// ask. It holds the endpoint URL, its adapters.Format (which ResolveURL
// picks for a URL) and the request. Options say how, with timeouts,
// limits, a Clock, a Dial for an in-memory network and TLS. The zero
// Options value is usable. observe sees each stream's Events as it
// unfolds, for a live view.
//
// Run carries out a Plan. It sends warmup streams, then the measured ones
// as a closed or an open loop. A closed loop (ClosedLoop) keeps N streams
// in flight. An open loop (OpenLoop) is paced by a Pacer, which gives
// constant or Poisson arrivals or recorded offsets. The open loop has an
// admission limit, and every arrival's schedule lag is sampled. Each record
// goes to a sink as it ends, and the run's own figures come back as
// stats.RunStats. Replay decodes recorded reads without a socket.
//
// What becomes of records is elsewhere. Package stats derives and
// aggregates them into a summary and gates it. Package record writes and
// reads record files.
package probe
