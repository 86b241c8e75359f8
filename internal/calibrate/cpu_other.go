//go:build !unix

package calibrate

import "time"

func rusage() (time.Duration, bool) { return 0, false }
