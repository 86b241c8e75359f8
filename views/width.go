package views

import (
	"strings"
)

// JoinColumns puts panels side by side, sep between them. Each panel must
// already be cut to its width and height (Fit): its lines are then joined
// as they are, with no measuring.
func JoinColumns(sep string, panels ...string) string {
	cols := make([][]string, len(panels))
	rows := 0
	for i, p := range panels {
		cols[i] = strings.Split(p, "\n")
		rows = max(rows, len(cols[i]))
	}
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteByte('\n')
		}
		for i, c := range cols {
			if i > 0 {
				b.WriteString(sep)
			}
			if r < len(c) {
				b.WriteString(c[r])
			}
		}
	}
	return b.String()
}
