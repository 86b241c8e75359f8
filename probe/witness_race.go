//go:build linux && race

package probe

import "syscall"

// raceAcquire makes a witnessed read an edge the race detector sees, as
// syscall.Read is: it knows a write to a socket happens before the read
// of it only through syscall's own read and write, and recvmsg is
// neither. A read of no bytes returns at once and takes nothing.
func raceAcquire(fd uintptr) { syscall.Read(int(fd), nil) }
