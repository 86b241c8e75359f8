package adapters

// BytesPerRun is bytesPerRun for the format benchmarks (package adapters_test).
var BytesPerRun = bytesPerRun
