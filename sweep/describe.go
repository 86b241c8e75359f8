package sweep

import (
	"fmt"
	"strings"

	"github.com/driplab/drip/probe"
)

// Describe is the sweep's shape in one line: its levels, how long each
// runs, when it stops, and the seed where it decides something.
func (sp *Plan) Describe() string {
	p := &sp.Base
	levels := make([]string, len(sp.Levels))
	for i, v := range sp.Levels {
		levels[i] = LevelNum(v)
	}
	parts := []string{"sweep of " + sp.Kind + " " + strings.Join(levels, ",")}
	if sp.Kind == KindRate {
		parts[0] += fmt.Sprintf(" (%s arrivals, at most %d in flight)", p.Arrival, p.InflightLimit())
	}
	parts = append(parts, p.DescribeLength(" per level"))
	if p.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("each after %d warmup per prompt", p.Warmup))
	}
	for _, g := range sp.StopWhen {
		parts = append(parts, "stop when "+g.Expr)
	}
	if len(p.Prompts) > 1 || p.Arrival == probe.ArrivalPoisson {
		parts = append(parts, fmt.Sprintf("seed %d", p.Seed))
	}
	return strings.Join(parts, " · ")
}
