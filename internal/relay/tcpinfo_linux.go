package relay

import (
	"net"

	"golang.org/x/sys/unix"
)

// tcpCounters are the TCP_INFO figures a relay keeps of a client's socket.
// ok is false when the kernel gave none.
type tcpCounters struct {
	ok            bool
	rttUS         uint32
	totalRetrans  uint32
	lost          uint32
	rwndLimitedUS uint64
	dsackDups     uint32
}

// socketCounters asks the kernel for c's TCP_INFO with one getsockopt.
func socketCounters(c *net.TCPConn) tcpCounters {
	if c == nil {
		return tcpCounters{}
	}
	raw, err := c.SyscallConn()
	if err != nil {
		return tcpCounters{}
	}
	var t tcpCounters
	raw.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return
		}
		t = tcpCounters{ok: true, rttUS: info.Rtt, totalRetrans: info.Total_retrans, lost: info.Lost, rwndLimitedUS: info.Rwnd_limited, dsackDups: info.Dsack_dups}
	})
	return t
}
