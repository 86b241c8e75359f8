//go:build !linux

package relay

import "net"

// tcpCounters are the TCP_INFO figures a relay keeps of a client's socket.
// Only Linux gives them here, so ok stays false.
type tcpCounters struct {
	ok                        bool
	rttUS, totalRetrans, lost uint32
	rwndLimitedUS             uint64
	dsackDups                 uint32
}

func socketCounters(*net.TCPConn) tcpCounters { return tcpCounters{} }
