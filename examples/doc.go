// Package examples holds Go programs that use drip as a library, from a
// module of their own. Its path is not under github.com/driplab/drip, so
// the compiler refuses any import of drip's internal packages. A program
// here builds only against what drip exports, and `.ci/test` builds and
// tests it.
package examples
