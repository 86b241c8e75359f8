package adapters

// BytesPerRun is bytesPerRun for the format benchmarks (package adapters_test).
var BytesPerRun = bytesPerRun

// EventStreamFile is eventStreamFile for package adapters_test.
var EventStreamFile = eventStreamFile
