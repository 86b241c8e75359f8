package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// maxPunctPer100 is the most colons and semicolons a package's comments
// may hold per 100 comment lines. A comment that chains clauses with them
// reads as one long thought, and the limit asks for sentences instead.
const maxPunctPer100 = 15

// TestCommentPunctuation logs the colons and semicolons per 100 comment
// lines of every package and of the whole module. It fails for any package
// over maxPunctPer100. Run it with -v to read the figures.
func TestCommentPunctuation(t *testing.T) {
	counts, err := commentPunct(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	var total punctCount
	for _, pkg := range sortedKeys(counts) {
		c := counts[pkg]
		total.lines += c.lines
		total.marks += c.marks
		t.Logf("%-24s %5d comment lines %5d marks %5.1f per 100", pkg, c.lines, c.marks, c.per100())
		if c.per100() > maxPunctPer100 {
			t.Errorf("%s: %.1f colons and semicolons per 100 comment lines, over %d: say one thought a sentence", pkg, c.per100(), maxPunctPer100)
		}
	}
	t.Logf("%-24s %5d comment lines %5d marks %5.1f per 100", "(module)", total.lines, total.marks, total.per100())
}

// TestCommentPunctCountsMarksInComments shows what the measure counts. A
// directive, a URL, a slice expression, a code block and a code span in
// backquotes add no mark, and code outside comments is not read at all.
func TestCommentPunctCountsMarksInComments(t *testing.T) {
	t.Parallel()
	src := `package p

//go:generate echo a:b
// One: two; three.
//
//	x := y
//
// See https://example.com:8080/x, b[i:j] and ` + "`a:b`" + `.
/* Block: one
   two */
var s = "x:y;z"
`
	c, err := filePunct(token.NewFileSet(), "p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if c.lines != 6 || c.marks != 3 {
		t.Fatalf("filePunct = %d lines, %d marks, want 6 lines and 3 marks", c.lines, c.marks)
	}
}

// punctCount is a package's comment lines and the colons and semicolons
// in them.
type punctCount struct {
	lines, marks int
}

func (c punctCount) per100() float64 {
	if c.lines == 0 {
		return 0
	}
	return 100 * float64(c.marks) / float64(c.lines)
}

// commentPunct measures every non-test .go file of the module at root,
// keyed by its folder relative to root.
func commentPunct(root string) (map[string]punctCount, error) {
	counts := map[string]punctCount{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, path, d.Name())
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		c, err := filePunct(fset, path, nil)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := counts[filepath.ToSlash(rel)]
		pkg.lines += c.lines
		pkg.marks += c.marks
		counts[filepath.ToSlash(rel)] = pkg
		return nil
	})
	return counts, err
}

// Spans the measure does not read. A URL's colon, a code span's
// punctuation and a slice expression such as b[i:j] belong to what they
// quote, not to the prose around them.
var (
	urlSpan    = regexp.MustCompile(`[a-z][a-z0-9+.-]*://\S*`)
	backquoted = regexp.MustCompile("`[^`]*`")
	sliceExpr  = regexp.MustCompile(`\w\[[^\]\s]*:[^\]\s]*\]`)
)

// filePunct counts the comment lines of one file and the marks in them.
// A compiler directive (//go:build, //line) is not a comment line, and
// neither is a code block indented in a doc comment.
func filePunct(fset *token.FileSet, path string, src any) (punctCount, error) {
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return punctCount{}, err
	}
	var c punctCount
	for _, g := range f.Comments {
		for _, cm := range g.List {
			if isDirective(cm.Text) {
				continue
			}
			for _, line := range strings.Split(cm.Text, "\n") {
				if strings.HasPrefix(line, "//\t") {
					continue
				}
				line = urlSpan.ReplaceAllString(line, "")
				line = backquoted.ReplaceAllString(line, "")
				line = sliceExpr.ReplaceAllString(line, "")
				c.lines++
				c.marks += strings.Count(line, ":") + strings.Count(line, ";")
			}
		}
	}
	return c, nil
}

// isDirective says whether a // comment is a directive to a tool, which
// the prose rule does not cover.
func isDirective(text string) bool {
	return strings.HasPrefix(text, "//go:") || strings.HasPrefix(text, "//line ") ||
		strings.HasPrefix(text, "//nolint") || strings.HasPrefix(text, "//export ")
}

func sortedKeys(m map[string]punctCount) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
