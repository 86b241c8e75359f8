package probe

import "github.com/driplab/drip/stats"

// SchedLag starts measuring this process's scheduling latency (how long
// runnable goroutines waited for a core, from the Go runtime's own
// histogram); the returned func gives the distribution since, in ms.
func SchedLag() func() stats.Dist { return startSchedWatch().dist }
