package archtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// topLevel is what may stand at the module's top level. These are the
// packages a Go user of drip's probe needs, the analyses of records they
// draw (hops, compare, sweep), the screens, the command and the three
// folders that hold the rest. Everything else goes under internal/, named
// for what it owns.
var topLevel = []string{"cmd", "tui", "views", "probe", "adapters", "fixtures", "record", "stats", "hops", "compare", "sweep", "internal", "bench", "integration"}

// TestTopLevelIsTheDesign fails naming each package whose first path
// element is not one of topLevel.
func TestTopLevelIsTheDesign(t *testing.T) {
	imports, err := goListImports(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range strayTopLevel(imports) {
		t.Error(msg)
	}
}

// TestStrayTopLevelNamesThePackage shows the guard fails on a package
// beside the design's folders.
func TestStrayTopLevelNamesThePackage(t *testing.T) {
	got := strayTopLevel(map[string][]string{"probe": nil, "internal/relay": nil, "cmd/drip": nil, "recorder": nil})
	want := []string{"recorder stands at the top level: move it under internal/, named for what it owns (the top level is " + strings.Join(topLevel, ", ") + ")"}
	if !slices.Equal(got, want) {
		t.Fatalf("strayTopLevel = %q, want %q", got, want)
	}
}

// strayTopLevel is one message per package outside topLevel, sorted.
func strayTopLevel(imports map[string][]string) []string {
	var msgs []string
	for p := range imports {
		first, _, _ := strings.Cut(p, "/")
		if !slices.Contains(topLevel, first) {
			msgs = append(msgs, fmt.Sprintf("%s stands at the top level: move it under internal/, named for what it owns (the top level is %s)", p, strings.Join(topLevel, ", ")))
		}
	}
	slices.Sort(msgs)
	return msgs
}
