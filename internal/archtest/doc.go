// Package archtest holds the guards CI runs over drip's own source: the
// import layering against the table in docs/architecture.md, the top level
// (the design's folders only), and the length of every function outside
// tests. It has no code of its own; its tests are the guards, so
// `go test ./...` (and with it .ci/run) keeps the rules.
package archtest
