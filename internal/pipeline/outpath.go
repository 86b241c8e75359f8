package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/driplab/drip/internal/sanitize"
)

// CheckOutPath refuses, before anything is sent, an output file (flag's
// path) that cannot be created or that holds data. That is a directory
// that is missing or is no directory, a path that is a directory, or a
// regular file that is not empty unless force. A run would otherwise fail
// at its first record, or replace a baseline without a word. Every command
// checks every output it writes here, so one mistake reads alike on all
// of them. The errors are usage errors. No path is none to check, and a
// device (/dev/stdout) or an empty file (mktemp's) loses nothing.
func CheckOutPath(flag, path string, force bool) error {
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
	fi, err = os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return Usage("%s %s: %v", flag, sanitize.Line(path), err)
	case fi.IsDir():
		return Usage("%s %s: a directory: name a file in it", flag, sanitize.Line(path))
	case fi.Mode().IsRegular() && fi.Size() > 0 && !force:
		return Usage("%s %s: the file exists (%d bytes) and drip replaces none unasked: name another file, or add --force to replace it", flag, sanitize.Line(path), fi.Size())
	}
	return nil
}

// Output is one file a command writes, by the flag that names it.
type Output struct{ Flag, Path string }

// CheckOutputs checks every output a command writes (CheckOutPath), all
// of them before anything is sent, and returns the first refusal.
func CheckOutputs(force bool, outs ...Output) error {
	for _, o := range outs {
		if err := CheckOutPath(o.Flag, o.Path, force); err != nil {
			return err
		}
	}
	return nil
}
