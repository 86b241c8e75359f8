package report

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/records.md lists every CSV column drip writes, in order: the list
// and the header cannot drift apart.
func TestCSVColumnsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/records.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## CSV\n")
	if !ok {
		t.Fatal("docs/records.md has no ## CSV section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\|").FindAllStringSubmatch(sec, -1) {
		listed = append(listed, m[1])
	}
	var b bytes.Buffer
	if _, err := NewCSV(&b); err != nil {
		t.Fatal(err)
	}
	header := strings.Split(strings.TrimSpace(b.String()), ",")
	if !slices.Equal(listed, header) {
		t.Errorf("docs/records.md's CSV columns:\n%v\nthe header drip writes:\n%v", listed, header)
	}
}
