// Package integration holds the tests whose dependencies are too heavy for the
// product's go.mod: real receivers built from the module proxy and schema
// validators. It is its own module so drip's go.mod stays lean; `.ci/run`
// and the README's test command run it after the main module's tests.
package integration
