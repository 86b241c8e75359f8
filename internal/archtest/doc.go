// Package archtest holds the guards CI runs over drip's own source. They
// check the import layering against the table in docs/architecture.md, the
// top level (the design's folders only), the length of every function
// outside tests, and the punctuation of comments. It has no code of its
// own. Its tests are the guards, so `go test ./...` (and with it .ci/run)
// keeps the rules.
package archtest
