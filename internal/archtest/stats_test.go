package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// terminalModules are the module paths of the terminal libraries drip's
// screens use. stats computes figures for every output, so none of them
// may reach it, however indirectly.
var terminalModules = []string{
	"charm.land/",
	"github.com/charmbracelet/",
	"github.com/clipperhouse/",
	"github.com/guptarohit/asciigraph",
	"github.com/lucasb-eyer/go-colorful",
	"github.com/mattn/go-runewidth",
	"github.com/muesli/",
	"github.com/rivo/uniseg",
	"github.com/xo/terminfo",
	"golang.org/x/term",
}

// TestStatsImportsNoTerminalPackage fails naming each terminal package
// that go list -deps finds under stats.
func TestStatsImportsNoTerminalPackage(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./stats")
	cmd.Dir = moduleRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./stats: %v", err)
	}
	for _, pkg := range terminalDeps(strings.Fields(string(out))) {
		t.Errorf("stats depends on the terminal package %s: format figures with internal/textfmt/numfmt", pkg)
	}
}

// TestTerminalDepsNamesThePackage shows the guard fails on a terminal
// package and passes over the standard library and drip's own.
func TestTerminalDepsNamesThePackage(t *testing.T) {
	t.Parallel()
	deps := []string{"strconv", "github.com/driplab/drip/record", "github.com/charmbracelet/x/ansi", "golang.org/x/term", "golang.org/x/text/unicode/norm"}
	got := terminalDeps(deps)
	want := []string{"github.com/charmbracelet/x/ansi", "golang.org/x/term"}
	if !slices.Equal(got, want) {
		t.Fatalf("terminalDeps = %q, want %q", got, want)
	}
}

// terminalDeps is the packages of deps that belong to a terminal module.
func terminalDeps(deps []string) []string {
	var found []string
	for _, pkg := range deps {
		for _, mod := range terminalModules {
			if pkg == mod || strings.HasPrefix(pkg, strings.TrimSuffix(mod, "/")+"/") {
				found = append(found, pkg)
				break
			}
		}
	}
	return found
}
