package cliconv

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/driplab/drip/internal/sanitize"
)

// MaxSize is the largest size ParseSize takes. Beyond it a size is a
// typo.
const MaxSize = 1 << 40

// sizeUnits are ParseSize's units, B, KiB, MiB, GiB, and k, M, G, KB, MB,
// GB as the same powers of 2.
var sizeUnits = map[string]int64{"": 1, "B": 1, "k": 1 << 10, "K": 1 << 10, "KB": 1 << 10, "KiB": 1 << 10,
	"M": 1 << 20, "MB": 1 << 20, "MiB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GiB": 1 << 30}

// ParseSize reads a size flag (--max-bytes), a whole number of bytes from
// 1 to MaxSize with an optional unit. Its error names the flag.
func ParseSize(flag, s string) (int64, error) {
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	mult, ok := sizeUnits[strings.TrimSpace(s[len(num):])]
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if !ok || err != nil || n < 1 || n > MaxSize/mult {
		return 0, fmt.Errorf("%s %q: want a size from 1 byte to 1TiB, e.g. 512KiB or 64MiB", flag, s)
	}
	return n * mult, nil
}

// CheckAddr checks an address drip listens on (--listen, --addr,
// --metrics-addr). One that is not `host:port`, or whose port number is
// out of range, is an error naming the flag. An empty port is any free
// one, as to net.Listen. A named port (`localhost:http`) is left to
// net.Listen, which fails on a name it does not know.
func CheckAddr(flag, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err != nil || perr == nil && (n < 0 || n > 65535) {
		return fmt.Errorf("%s %q: want host:port, e.g. 127.0.0.1:4143 (port 0: any free port)", flag, sanitize.Line(addr))
	}
	return nil
}
