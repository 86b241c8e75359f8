//go:build linux && !race

package probe

// raceAcquire does nothing outside the race detector (witness_race.go).
func raceAcquire(uintptr) {}
