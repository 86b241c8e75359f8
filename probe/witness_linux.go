//go:build linux

package probe

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// WitnessDial dials with dial and, for a TCP connection, asks the kernel to
// stamp each segment it receives (SO_TIMESTAMPING, software receive
// stamps) and returns the connection read through witnessConn. Any reader
// of a connection it dialed (the probe, a relay's upstream) asks WitnessOf
// for the kernel's account of its latest read. A connection that is no
// TCP socket, or one the kernel refuses to stamp, comes back as dialed.
func WitnessDial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return c, err
		}
		if tc, ok := c.(*net.TCPConn); ok {
			if w := newWitnessConn(tc); w != nil {
				return w, nil
			}
		}
		return c, nil
	}
}

// tcpInfoLen is as much of struct tcp_info as the witness reads, up to
// rcv_ooopack. A kernel without the later fields returns less, and they
// stay 0.
const tcpInfoLen = uint32(unsafe.Offsetof(unix.TCPInfo{}.Snd_wnd))

// witnessConn is a TCP connection whose every read goes through recvmsg,
// taking the kernel's receive stamp of the newest segment read. A read
// allocates nothing and takes no lock. Its function is the connection's,
// the recvmsg buffers come from msgPool, and the stamp is an atomic.
type witnessConn struct {
	*net.TCPConn
	raw    syscall.RawConn
	readFn func(fd uintptr) bool

	// The read in progress, under the runtime's read lock on the socket.
	p     []byte
	n     int
	errno syscall.Errno
	// Between reads, under the same lock: waited says the latest attempt
	// found the socket empty (the reader keeps up), and drained that the
	// read after it took all there was, so the next attempt peeks first.
	waited, drained bool

	// stamp is the latest read's receive stamp. The probe reads it from its
	// own goroutine, and HTTP/2 reads the socket on another.
	stamp atomic.Int64

	// View's TCP_INFO ask, under mu, as streams sharing an HTTP/2
	// connection ask from their own goroutines. The counts are the
	// latest the kernel gave, kept when an ask fails.
	mu      sync.Mutex
	infoFn  func(fd uintptr)
	info    unix.TCPInfo
	infoErr syscall.Errno
	counts  KernelView
}

// recvBufs are one recvmsg's header, vector and control buffer.
type recvBufs struct {
	msg unix.Msghdr
	iov unix.Iovec
	oob [64]byte // one SCM_TIMESTAMPING message, a header and three timespecs
}

// msgPool lends recvBufs for the span of one system call. At 1,000
// streams a connection's own buffers were out of the cache at each of its
// reads. A pooled one comes back warm from the read before on the same
// core.
var msgPool = sync.Pool{New: func() any { return new(recvBufs) }}

func newWitnessConn(tc *net.TCPConn) *witnessConn {
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	var serr error
	err = raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING,
			unix.SOF_TIMESTAMPING_RX_SOFTWARE|unix.SOF_TIMESTAMPING_SOFTWARE)
	})
	if err != nil || serr != nil {
		return nil
	}
	c := &witnessConn{TCPConn: tc, raw: raw}
	c.readFn, c.infoFn = c.recv, c.askInfo
	return c
}

// The methods a *net.TCPConn would lend that read its socket around Read
// are hidden, so every read of the connection is witnessed.
func (c *witnessConn) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(w, struct{ io.Reader }{c})
}

// Read reads through recvmsg as net.TCPConn.Read would through read. It
// waits in the runtime's poller, and returns io.EOF at the peer's end.
func (c *witnessConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.p = p[:min(len(p), 1<<30)]
	err := c.raw.Read(c.readFn)
	n, errno := c.n, c.errno
	c.p = nil
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("recvmsg", errno)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// recv is one recvmsg on fd; false asks the poller to wait until the
// socket is readable. A reader that keeps up reads each segment after
// waiting for it, and its next attempt finds the socket empty. recvmsg
// costs more than a plain read for that empty answer (it copies its
// message header in first), so after a wait and a read that drained the
// socket, recv asks with a one-byte peek, which is cheaper still than a
// read, and reads only if something came. The poller was reset before
// recv was called, so whatever arrives after the peek wakes the reader.
func (c *witnessConn) recv(fd uintptr) bool {
	if c.drained {
		c.drained = false
		if peekEmpty(fd) {
			c.waited = true
			return false
		}
	}
	n, stamp, errno := recvmsg(fd, c.p)
	if errno == syscall.EAGAIN {
		c.waited = true
		return false
	}
	c.n, c.errno = n, errno
	c.drained, c.waited = c.waited && errno == 0 && 0 < n && n < len(c.p), false
	if errno == 0 {
		c.stamp.Store(stamp)
		raceAcquire(fd)
	}
	return true
}

// peekEmpty reports that fd has nothing to read now, asking with a
// one-byte peek that takes nothing. Anything else (bytes, the peer's end,
// an error) is false, for recvmsg to read.
func peekEmpty(fd uintptr) bool {
	var b byte
	_, _, errno := unix.Syscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b)), 1,
		unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
	return errno == syscall.EAGAIN
}

// recvmsg reads into p from fd with buffers from msgPool, and returns the
// bytes read and the read's receive stamp.
func recvmsg(fd uintptr, p []byte) (n int, stamp int64, errno syscall.Errno) {
	b := msgPool.Get().(*recvBufs)
	b.iov.Base = &p[0]
	b.iov.SetLen(len(p))
	b.msg.Iov = &b.iov
	b.msg.SetIovlen(1)
	b.msg.Control = &b.oob[0]
	b.msg.SetControllen(len(b.oob))
	var r uintptr
	for {
		r, _, errno = unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&b.msg)), 0)
		if errno != syscall.EINTR {
			break
		}
	}
	if errno == 0 {
		stamp = b.stamp()
	}
	b.iov.Base = nil // the pool keeps no caller's buffer alive
	msgPool.Put(b)
	return int(r), stamp, errno
}

// stamp is the software receive time (ns) in the read's SCM_TIMESTAMPING
// control message, the first of its three timespecs. It is 0 when none
// came.
func (b *recvBufs) stamp() int64 {
	ctl := b.oob[:b.msg.Controllen]
	for len(ctl) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&ctl[0]))
		if h.Len < unix.SizeofCmsghdr || int(h.Len) > len(ctl) {
			return 0
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPING && int(h.Len) >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
			ts := (*unix.Timespec)(unsafe.Pointer(&ctl[unix.CmsgLen(0)]))
			return ts.Nano()
		}
		ctl = ctl[min(unix.CmsgSpace(int(h.Len)-unix.CmsgLen(0)), len(ctl)):]
	}
	return 0
}

// View asks the socket's TCP_INFO now, beside the latest read's stamp.
func (c *witnessConn) View() KernelView {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raw.Control(c.infoFn)
	if c.infoErr == 0 {
		i := &c.info
		c.counts.SegsIn, c.counts.OutOfOrder, c.counts.Retrans = i.Data_segs_in, i.Rcv_ooopack, i.Total_retrans
		c.counts.RTTUS, c.counts.MinRTTUS, c.counts.RcvRTTUS = i.Rtt, i.Min_rtt, i.Rcv_rtt
		c.counts.BytesIn = i.Bytes_received
	}
	v := c.counts
	v.StampNS = c.stamp.Load()
	return v
}

// askInfo reads fd's TCP_INFO into c.info, under c.mu.
func (c *witnessConn) askInfo(fd uintptr) {
	size := tcpInfoLen
	_, _, c.infoErr = unix.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(&c.info)), uintptr(unsafe.Pointer(&size)), 0)
}

// LatestStamp is the latest read's receive stamp in ns, or 0 for none. It
// asks the socket nothing.
func (c *witnessConn) LatestStamp() int64 { return c.stamp.Load() }
