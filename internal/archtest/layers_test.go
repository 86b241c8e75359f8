package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// architectureDoc is the file whose "## Layers" table the layering is
// checked against, relative to the module root.
const architectureDoc = "docs/architecture.md"

// layerRow is one row of the layers table: the packages it names and the
// drip packages they may import.
type layerRow struct {
	line     int
	packages []string
	allowed  []string
}

// TestImportsFollowTheLayersTable fails naming each drip package that
// imports a drip package its row does not allow, each package missing from
// the table, and each row naming no package.
func TestImportsFollowTheLayersTable(t *testing.T) {
	root := moduleRoot(t)
	rows, err := readLayers(filepath.Join(root, architectureDoc))
	if err != nil {
		t.Fatal(err)
	}
	imports, err := goListImports(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range checkLayers(rows, imports) {
		t.Error(msg)
	}
}

// TestCheckLayersNamesTheBreak shows the guard fails: an upward import, a
// package with no row, a row with no package and a row allowing a package
// from a later row are each named.
func TestCheckLayersNamesTheBreak(t *testing.T) {
	rows := []layerRow{
		{line: 1, packages: []string{"record"}},
		{line: 2, packages: []string{"stats"}, allowed: []string{"record", "probe"}},
		{line: 3, packages: []string{"probe"}, allowed: []string{"record", "stats"}},
		{line: 4, packages: []string{"gone"}},
	}
	imports := map[string][]string{
		"record": {"stats"},
		"stats":  {"record"},
		"probe":  {"record", "stats"},
		"new":    nil,
	}
	got := checkLayers(rows, imports)
	want := []string{
		"docs/architecture.md:2: stats may import probe, which is not in a row above it: the table reads from the bottom layer up",
		"docs/architecture.md:4: the table lists gone, which is no package of drip's: remove its row",
		"new is missing from the table in docs/architecture.md: add a row (what it owns, what it imports)",
		"record imports stats, which its row (docs/architecture.md:1) does not allow (allowed: none of drip's)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("checkLayers =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkLayers compares the packages' imports of drip's own packages with
// the table and returns one message per break, sorted.
func checkLayers(rows []layerRow, imports map[string][]string) []string {
	var msgs []string
	allowed := map[string]layerRow{}
	for _, r := range rows {
		for _, a := range r.allowed {
			if _, above := allowed[a]; !above {
				msgs = append(msgs, fmt.Sprintf("%s:%d: %s may import %s, which is not in a row above it: the table reads from the bottom layer up", architectureDoc, r.line, strings.Join(r.packages, ", "), a))
			}
		}
		for _, p := range r.packages {
			allowed[p] = r
			if _, ok := imports[p]; !ok {
				msgs = append(msgs, fmt.Sprintf("%s:%d: the table lists %s, which is no package of drip's: remove its row", architectureDoc, r.line, p))
			}
		}
	}
	for p, imps := range imports {
		r, ok := allowed[p]
		if !ok {
			msgs = append(msgs, fmt.Sprintf("%s is missing from the table in %s: add a row (what it owns, what it imports)", p, architectureDoc))
			continue
		}
		for _, imp := range imps {
			if !slices.Contains(r.allowed, imp) {
				msgs = append(msgs, fmt.Sprintf("%s imports %s, which its row (%s:%d) does not allow (allowed: %s)", p, imp, architectureDoc, r.line, allowedList(r.allowed)))
			}
		}
	}
	slices.Sort(msgs)
	return msgs
}

// allowedList is a row's allowed imports as the messages say them.
func allowedList(allowed []string) string {
	if len(allowed) == 0 {
		return "none of drip's"
	}
	return strings.Join(allowed, ", ")
}

// codeSpan is a name in backquotes, as the table writes packages.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// readLayers reads the first table under "## Layers" in the file at path:
// the packages in the first column, the imports they may have in the last,
// each in backquotes (a trailing slash dropped).
func readLayers(path string) ([]layerRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []layerRow
	inLayers, inTable := false, false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "## ") {
			inLayers = line == "## Layers"
			continue
		}
		if !inLayers {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !inTable || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			inTable = true // the header, then the line under it
			continue
		}
		rows = append(rows, layerRow{line: n, packages: codeSpans(cells[0]), allowed: codeSpans(cells[len(cells)-1])})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no table under \"## Layers\"", path)
	}
	return rows, sc.Err()
}

// codeSpans is the names in backquotes in a table cell.
func codeSpans(cell string) []string {
	var names []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		names = append(names, strings.TrimSuffix(m[1], "/"))
	}
	return names
}

// goListImports lists the main module's packages, as `go list ./...` does,
// each with the module's own packages it imports outside its tests, all
// relative to the module path.
func goListImports(root string) (map[string][]string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	modData, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	module := modulePath(modData) + "/"
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(fields[0], module)
		imports[pkg] = nil
		for _, imp := range fields[1:] {
			if own, ok := strings.CutPrefix(imp, module); ok {
				imports[pkg] = append(imports[pkg], own)
			}
		}
	}
	return imports, nil
}

// modulePath is the path on go.mod's module line.
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
