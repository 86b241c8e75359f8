package probe_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// Interleave runs two plans in turns of their concurrency: every plan gets
// its Runs, numbered on from turn to turn (seq 0, 1, 2… once each), warmup
// in the first turn only, and the plans take turns rather than one running
// out before the other starts.
func TestInterleaveTakesTurns(t *testing.T) { inBubble(t, testInterleaveTakesTurns) }

func testInterleaveTakesTurns(t *testing.T, srv *memnet.Server) {
	a, b := fixturePlan(t, srv, "steady"), fixturePlan(t, srv, "steady")
	a.Runs, a.Warmup, a.Concurrency = 4, 1, 2
	b.Runs, b.Concurrency = 3, 1
	seqs := make([][]int, 2)
	warmup := make([]int, 2)
	var order []string
	probe.Interleave(context.Background(), []probe.Plan{a, b}, func(i int, r *record.Record) {
		seqs[i] = append(seqs[i], r.Seq)
		if r.Phase == record.PhaseWarmup {
			warmup[i]++
		}
		order = append(order, fmt.Sprint(i))
	})
	for i, n := range []int{4 + 3, 3} { // a: its 3 prompts' warmup, then 4 measured
		slices.Sort(seqs[i])
		if len(seqs[i]) != n || seqs[i][0] != 0 || seqs[i][n-1] != n-1 {
			t.Errorf("plan %d: seqs %v, want 0…%d once each", i, seqs[i], n-1)
		}
	}
	if warmup[0] != 3 || warmup[1] != 0 {
		t.Errorf("warmup records %v, want 3 (one per prompt, first turn only) and 0", warmup)
	}
	// a's warmup and first turn (3+2), b's turn (1), a's second turn (2), b's…
	if got, want := strings.Join(order, ""), "00000"+"1"+"00"+"1"+"1"; got != want {
		t.Errorf("turns %s, want %s", got, want)
	}
}
