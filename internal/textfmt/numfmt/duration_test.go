package numfmt

import (
	"math"
	"slices"
	"testing"
)

func TestMSPicksUnitAndDigitsBySize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ms   float64
		want string
	}{
		{0, "0 ms"}, {0.0123, "0.01 ms"}, {0.004, "0.004 ms"}, {0.00001234, "0.000012 ms"}, {0.42, "0.42 ms"}, {0.999, "1 ms"},
		{4.24, "4.2 ms"}, {2, "2 ms"}, {9.96, "10 ms"}, {25, "25 ms"}, {687.4, "687 ms"},
		{999.7, "1 s"}, {1500, "1.5 s"}, {2494, "2.49 s"}, {9996, "10 s"},
		{12500, "12.5 s"}, {99960, "100 s"}, {125000, "125 s"}, {3.6e6, "3600 s"},
		{-1500, "-1.5 s"}, {-0.5, "-0.5 ms"}, {math.NaN(), "—"}, {math.Inf(1), "∞"},
	}
	for _, c := range cases {
		if got := MS(c.ms); got != c.want {
			t.Errorf("MS(%v) = %q, want %q", c.ms, got, c.want)
		}
	}
}

func TestOptMSPrintsADashForUndefined(t *testing.T) {
	t.Parallel()
	v := 1500.0
	if got := OptMS(nil); got != "—" {
		t.Errorf("OptMS(nil) = %q, want —", got)
	}
	if got := OptMS(&v); got != "1.5 s" {
		t.Errorf("OptMS(1500) = %q, want 1.5 s", got)
	}
}

func TestSignedMSMarksAGrowth(t *testing.T) {
	t.Parallel()
	for ms, want := range map[float64]string{0.02: "+0.02 ms", -0.5: "-0.5 ms", 0: "0 ms", 1375: "+1.38 s", math.NaN(): "—"} {
		if got := SignedMS(ms); got != want {
			t.Errorf("SignedMS(%v) = %q, want %q", ms, got, want)
		}
	}
}

func TestMSRangeSaysASharedUnitOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lo, hi float64
		want   string
	}{
		{95, 105, "95–105 ms"}, {500, 1000, "500 ms–1 s"}, {1500, 2000, "1.5–2 s"},
		{0.5, 2, "0.5–2 ms"}, {182.2, 181.9, "182 ms"}, {0, 1, "0–1 ms"},
	}
	for _, c := range cases {
		if got := MSRange(c.lo, c.hi); got != c.want {
			t.Errorf("MSRange(%v, %v) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestMSApartTellsFiguresApart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vs   []float64
		want []string
	}{
		{[]float64{17.57, 17.61, 17.59}, []string{"17.57 ms", "17.61 ms", "17.59 ms"}},
		{[]float64{1374, 1376, 1374.4}, []string{"1.37 s", "1.38 s", "1.37 s"}},
		{[]float64{1115.3, 1122.8}, []string{"1.115 s", "1.123 s"}},
		{[]float64{-0.79, 1.1}, []string{"-0.79 ms", "1.1 ms"}},
		{[]float64{5, 5}, []string{"5 ms", "5 ms"}},
	}
	for _, c := range cases {
		if got := MSApart(c.vs[0], c.vs[1], c.vs[2:]...); !slices.Equal(got, c.want) {
			t.Errorf("MSApart(%v) = %q, want %q", c.vs, got, c.want)
		}
	}
}
