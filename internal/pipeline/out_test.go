package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// WriteOut writes to stdout or to a private file; a file it cannot create
// is exit 3 naming --out.
func TestWriteOut(t *testing.T) {
	var stdout bytes.Buffer
	if err := WriteOut(&stdout, "", []byte("x\n")); err != nil || stdout.String() != "x\n" {
		t.Fatalf("stdout %q, %v", stdout.String(), err)
	}
	path := filepath.Join(t.TempDir(), "out.json")
	if err := WriteOut(&stdout, path, []byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "y\n" || stdout.String() != "x\n" {
		t.Errorf("file %q (%v), stdout %q", b, err, stdout.String())
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	err := WriteOut(&stdout, filepath.Join(t.TempDir(), "no", "such", "dir"), nil)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitCannot || !bytes.Contains([]byte(err.Error()), []byte("--out: ")) {
		t.Errorf("an uncreatable --out: %v, want exit 3 naming --out", err)
	}
}
