package calibrate

import (
	"strings"
	"testing"

	"github.com/driplab/drip/stats"
)

func lagDist(p99 float64, n int) stats.Dist { return stats.Dist{N: n, P99: &p99} }

func TestJudgeNamesTheRuleAndTheEvidence(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name      string
		load      Load
		saturated bool
		reasons   []string // substrings, one per reason, in order
		who       string
	}{
		{"idle", Load{Cores: 2, ClientLag: lagDist(0.04, 500), DripCores: f(0.03), MachineCores: f(0.15)}, false, nil, ""},
		{"client lag", Load{Cores: 2, ClientLag: lagDist(3.2, 500), DripCores: f(1.7), MachineCores: f(1.5)}, true,
			[]string{"client schedule lag p99 3.2 ms ≥ 1 ms (500 wake-ups sampled)"}, "drip's own client and server"},
		{"lag from few wake-ups is a hiccup", Load{Cores: 2, ClientLag: lagDist(9, 40), DripCores: f(0.03), MachineCores: f(0.2)}, false, nil, ""},
		{"lag just under the bound", Load{Cores: 2, ClientLag: lagDist(0.99, 500), DripCores: f(0.03), MachineCores: f(0.2)}, false, nil, ""},
		{"server lag", Load{Cores: 2, ClientLag: lagDist(0.1, 500), ServerLag: &stats.Dist{N: 300, P99: f(1.5)}, DripCores: f(0.4), MachineCores: f(1.2)}, true,
			[]string{"server schedule lag p99 1.5 ms"}, "other work on this machine"},
		{"busy machine, other work", Load{Cores: 2, ClientLag: lagDist(0.2, 500), DripCores: f(0.1), MachineCores: f(1.92)}, true,
			[]string{"1.92 of 2 cores busy ≥ 90 %"}, "other work on this machine"},
		{"busy machine, drip", Load{Cores: 2, ClientLag: lagDist(12, 5000), DripCores: f(1.9), MachineCores: f(1.99)}, true,
			[]string{"client schedule lag p99 12 ms", "1.99 of 2 cores busy"}, "drip's own client and server"},
		{"no CPU figures", Load{Cores: 2, ClientLag: lagDist(2, 500)}, true, []string{"client schedule lag p99 2 ms"}, ""},
	}
	for _, c := range cases {
		v := c.load.Judge()
		if v.Saturated != c.saturated || len(v.Reasons) != len(c.reasons) || v.Who != c.who {
			t.Errorf("%s: saturated %v, reasons %q, who %q; want %v, %d reasons, who %q", c.name, v.Saturated, v.Reasons, v.Who, c.saturated, len(c.reasons), c.who)
			continue
		}
		for i, r := range c.reasons {
			if !strings.Contains(v.Reasons[i], r) {
				t.Errorf("%s: reason %d is %q, want it to say %q", c.name, i, v.Reasons[i], r)
			}
		}
	}
}

func TestParseCPUStat(t *testing.T) {
	t.Parallel()
	a := parseCPUStat("cpu  100 5 50 800 40 3 2 0 7 0")
	b := parseCPUStat("cpu  300 5 150 900 40 3 2 0 9 0")
	if a == nil || a.busy != 160 || a.total != 1000 {
		t.Fatalf("parsed %+v, want busy 160 (user+nice+system+irq+softirq+steal) of 1000", a)
	}
	// 400 more ticks, 300 of them busy: 0.75 of the time, 1.5 of 2 cores.
	if got := busyCores(a, b, 2); got == nil || *got != 1.5 {
		t.Errorf("busy cores %v, want 1.5", got)
	}
	if parseCPUStat("cpu0 1 2 3 4") != nil || parseCPUStat("intr 5") != nil || busyCores(nil, b, 2) != nil {
		t.Error("a line that is not the total cpu line parsed, or a missing reading gave a figure")
	}
}
