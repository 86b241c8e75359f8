package probe_test

import (
	"context"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/driplab/drip/probe"
)

// BenchmarkRead is one 100-byte read that arrived in a segment of its own
// (a ping-pong over loopback: the reader asks, the server answers), read
// plainly and through the kernel witness: the difference is what the
// witness adds to each read (recvmsg with its stamp, TCP_INFO, the view).
func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct {
		name string
		dial probe.DialFunc
	}{
		{"plain", (&net.Dialer{}).DialContext},
		{"witness", probe.WitnessDial((&net.Dialer{}).DialContext)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			addr := serveOneConn(b, func(c net.Conn) {
				ask, answer := make([]byte, 1), make([]byte, 100)
				for {
					if _, err := io.ReadFull(c, ask); err != nil {
						return
					}
					c.Write(answer)
				}
			})
			c, err := bc.dial(context.Background(), "tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			k := probe.WitnessOf(c)
			buf := make([]byte, 4096)
			cpu0 := processCPU(b)
			for b.Loop() {
				c.Write(buf[:1])
				if _, err := io.ReadFull(c, buf[:100]); err != nil {
					b.Fatal(err)
				}
				if k != nil {
					k.View()
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the process's user and system time so far (ns): wall time
// on a shared machine says more of its other loads than of a read.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
