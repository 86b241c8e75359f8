package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// docTestName is a test, fuzz target or benchmark a doc names in code.
	docTestName = regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)`")
	// testFunc is the declaration of one in a _test.go file.
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)\(`)
)

// TestSecurityDocNamesTestsThatExist fails on a test docs/security.md
// names that no _test.go file under the root declares. Each bound there
// is held by the test beside it, and a renamed test would leave the bound
// unheld without a word.
func TestSecurityDocNamesTestsThatExist(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	missing, err := missingTests(string(doc), root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range missing {
		t.Errorf("docs/security.md names %s, which no _test.go declares: rename it there too", name)
	}
}

// TestMissingTestsFindsARenamedTest shows the guard fails: a doc naming a
// test no file declares gets it back, one naming a declared test does not.
func TestMissingTestsFindsARenamedTest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package a\n\nfunc TestKept(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing, err := missingTests("| a bound | `TestKept`, `TestRenamed` |", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(missing, []string{"TestRenamed"}) {
		t.Errorf("missing %q, want [TestRenamed]", missing)
	}
}

// missingTests is the tests doc names that no _test.go file under root
// declares, sorted.
func missingTests(doc, root string) ([]string, error) {
	declared := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range testFunc.FindAllSubmatch(b, -1) {
			declared[string(m[1])] = true
		}
		return err
	})
	var missing []string
	for _, m := range docTestName.FindAllStringSubmatch(doc, -1) {
		if !declared[m[1]] && !slices.Contains(missing, m[1]) {
			missing = append(missing, m[1])
		}
	}
	slices.Sort(missing)
	return missing, err
}
