package textfmt

// AxisRows are the values asciigraph labels a plot's rows with when its
// lower bound is 0: rows+1 of them, evenly spaced from 0 up to peak.
func AxisRows(peak float64, rows int) []float64 {
	rows = max(1, rows)
	vals := make([]float64, rows+1)
	for i := range vals {
		vals[i] = peak * float64(i) / float64(rows)
	}
	return vals
}

// AxisLabelWidth is the width of the widest of the row labels, so a plot
// can leave the rest of its width to the line.
func AxisLabelWidth(vals []float64, label func(float64) string) int {
	w := 0
	for _, v := range vals {
		w = max(w, Width(label(v)))
	}
	return w
}
