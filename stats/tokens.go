package stats

import "fmt"

// MaxServerTokens bounds a server's report of output tokens. A count
// outside 0..MaxServerTokens is not a measurement. A report of −100 gave
// −2040 tok/s, and two reports of MaxInt64 overflowed a sum. Such a count
// is not counted, and Record.TokensRejected says why.
const MaxServerTokens = 1_000_000_000

func validTokens(n int) bool { return n >= 0 && n <= MaxServerTokens }

func rejectedTokens(n int) string {
	return fmt.Sprintf("the server reported %d output tokens, outside 0..%d: not counted", n, MaxServerTokens)
}
