package textfmt

import "testing"

func TestNumAndFormat(t *testing.T) {
	t.Parallel()
	v, n := 1234.56, 38.0
	cases := map[string]string{Num(nil): "—", Num(&v): "1235", FormatFloat(0): "0",
		FormatFloat(0.1234): "0.123", FormatFloat(12.345): "12.35", FormatFloat(123.45): "123.5", FormatFloat(-2.5): "-2.50",
		Whole(&n): "38", Whole(nil): "—"}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
