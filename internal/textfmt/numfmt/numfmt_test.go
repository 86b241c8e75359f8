package numfmt

import "testing"

func TestFloatKeepsDigitsToTheFigureSize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.1234, "0.123"}, {-2.5, "-2.50"}, {12.345, "12.35"},
		{123.45, "123.5"}, {1234.56, "1235"}, {-1500, "-1500"},
	}
	for _, c := range cases {
		if got := Float(c.v); got != c.want {
			t.Errorf("Float(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
