package stats

import "fmt"

// MaxServerTokens bounds a server's report of output tokens: a count
// outside 0..MaxServerTokens is not a measurement (−100 gave −2040 tok/s;
// two reports of MaxInt64 overflowed a sum), so it is not counted and the
// record says why (Record.TokensRejected).
const MaxServerTokens = 1_000_000_000

func validTokens(n int) bool { return n >= 0 && n <= MaxServerTokens }

func rejectedTokens(n int) string {
	return fmt.Sprintf("the server reported %d output tokens, outside 0..%d: not counted", n, MaxServerTokens)
}
