package archtest

import (
	"fmt"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// libraryPackages are the packages a Go program outside drip's module
// imports. A Go user cannot name a type of drip's internal packages, so a
// declaration these packages export must not use one.
var libraryPackages = []string{"record", "adapters", "stats", "fixtures", "probe", "hops", "compare", "sweep", "views", "tui"}

// TestPublicAPINamesNoInternalType fails naming each internal type a
// library package's exported declarations name, as `go doc -all` prints
// them.
func TestPublicAPINamesNoInternalType(t *testing.T) {
	root := moduleRoot(t)
	for _, pkg := range libraryPackages {
		doc, err := goOutput(root, "doc", "-all", "./"+pkg)
		if err != nil {
			t.Fatal(err)
		}
		imports, err := goOutput(root, "list", "-f", `{{join .Imports "\n"}}`, "./"+pkg)
		if err != nil {
			t.Fatal(err)
		}
		named := internalTypesNamed(doc, strings.Fields(imports))
		if len(named) > 0 {
			t.Errorf("%s's exported declarations name internal types (%s), which no program outside drip can use", pkg, strings.Join(named, ", "))
		}
	}
}

// TestInternalTypesNamedReadsDeclarationsOnly shows what the guard reads.
// A type in a signature or a struct field counts. The same name in a doc
// comment or a line comment does not.
func TestInternalTypesNamedReadsDeclarationsOnly(t *testing.T) {
	t.Parallel()
	doc := "func Panel(h *hops.Stream, w int) string\n" +
		"    Panel draws h (see sweep.Result).\n" +
		"type Config struct {\n" +
		"\t// Relay is a relay's record (compare.Comparison).\n" +
		"\tRelay map[*record.Record]*hops.Stream\n" +
		"\tRun   *sweep.Plan // a sweep.Result is filled in\n" +
		"}\n"
	imports := []string{"github.com/driplab/drip/internal/hops", "github.com/driplab/drip/internal/sweep", "github.com/driplab/drip/compare", "github.com/driplab/drip/record"}
	got := internalTypesNamed(doc, imports)
	want := []string{"hops.Stream", "sweep.Plan"}
	if !slices.Equal(got, want) {
		t.Fatalf("internalTypesNamed = %q, want %q", got, want)
	}
}

// qualified is a package-qualified exported name such as hops.Stream.
var qualified = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z]\w*)`)

// internalTypesNamed is the sorted set of names from drip's internal
// packages among imports that the declaration lines of doc use. go doc
// indents doc comments by four spaces, and line comments start with //,
// so both are left out.
func internalTypesNamed(doc string, imports []string) []string {
	internal := map[string]bool{}
	for _, imp := range imports {
		if strings.Contains(imp, "/internal/") {
			internal[path.Base(imp)] = true
		}
	}
	seen := map[string]bool{}
	for line := range strings.Lines(doc) {
		if strings.HasPrefix(line, "    ") {
			continue
		}
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		for _, m := range qualified.FindAllStringSubmatch(line, -1) {
			if internal[m[1]] {
				seen[m[1]+"."+m[2]] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// goOutput runs the go command in dir and returns its standard output.
func goOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", fmt.Errorf("go %s: %v", strings.Join(args, " "), err)
	}
	return string(out), nil
}
