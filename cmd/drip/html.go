package main

import (
	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/pipeline"
)

// htmlUsage is --html's help line, the same on every command that has it.
const htmlUsage = "also write the report as one self-contained HTML file (inline SVG, no network load; mode 0600: it holds the streams' text); see docs/html-report.md"

// forceUsage is --force's help line, the same on every command that
// writes a file.
const forceUsage = "replace an output file (--out, --csv, --html) that holds data; without it drip refuses one (exit 2) before anything is sent"

// registerForce adds --force, which lets a command replace its outputs.
func registerForce(fs *pflag.FlagSet, force *bool) { fs.BoolVar(force, "force", false, forceUsage) }

// registerHTML adds --html FILE.
func registerHTML(fs *pflag.FlagSet, path *string) { fs.StringVar(path, "html", "", htmlUsage) }

// openHTML creates the --html file (nil without one), before anything is
// measured or read so a path that cannot be written fails first. Given a
// pipeline, it becomes one of its sinks and keeps the records for the
// streams' timelines.
func openHTML(path string, pl *pipeline.Pipeline) (*pipeline.HTML, error) {
	if path == "" {
		return nil, nil
	}
	h, err := pipeline.OpenHTML(path)
	if err == nil && pl != nil {
		pl.Attach(h.Sink())
	}
	return h, err
}
