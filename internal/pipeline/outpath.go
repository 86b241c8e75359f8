package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/driplab/drip/internal/sanitize"
)

// CheckOutPath refuses, before anything is sent, an output file (flag's
// path) whose directory is missing or is no directory, saying what to
// create: a run would otherwise fail at its first record, or lose its
// traffic. Its error is a usage error; no path is none to check.
func CheckOutPath(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Usage("%s %s: the directory %s does not exist: create it first (mkdir -p %s) or write elsewhere", flag, sanitize.Line(path), sanitize.Line(dir), sanitize.Line(dir))
	case err != nil:
		return Usage("%s %s: %v", flag, sanitize.Line(path), err)
	case !fi.IsDir():
		return Usage("%s %s: %s is a file, not a directory", flag, sanitize.Line(path), sanitize.Line(dir))
	}
	return nil
}
