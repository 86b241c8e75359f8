package adapters

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Request is what a user gives drip to build a request body from.
type Request struct {
	Model     string
	Prompt    string
	MaxTokens int // 0 = leave to the server
}

// Format is one wire protocol: how to ask for a stream and how to read it.
type Format struct {
	Name string // as --format and records spell it, e.g. "openai-chat"
	// Path is appended to a base URL that has no path of its own.
	Path string
	// Paths are URL path suffixes that identify this format's endpoint.
	Paths []string
	// Body builds the JSON request body.
	Body func(Request) ([]byte, error)
	// Auth sets credential headers from the environment (getenv) unless the
	// user already gave them with -H.
	Auth func(h http.Header, getenv func(string) string)
	// ContentTypes are response media types that point at this format when
	// the request side did not decide (generic fallbacks).
	ContentTypes []string
	// NewDecoder returns a decoder with the given frame size limit.
	NewDecoder func(limit int) Decoder
	// EndIsEOF marks formats whose end is a clean EOF after a finishing
	// frame (Gemini) rather than an explicit end marker.
	EndIsEOF bool
}

var registry []*Format

// Register adds a format. Each protocol file registers its own in init.
func Register(f *Format) {
	if Lookup(f.Name) != nil {
		panic("adapters: format registered twice: " + f.Name)
	}
	registry = append(registry, f)
}

// Lookup returns the format with that name, or nil.
func Lookup(name string) *Format {
	for _, f := range registry {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Names lists the registered formats, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for _, f := range registry {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

// ForPath picks the format whose endpoint path the URL path ends with; the
// longest matching suffix wins. It returns nil when none matches.
func ForPath(path string) *Format {
	var best *Format
	bestLen := 0
	for _, f := range registry {
		for _, p := range f.Paths {
			if strings.HasSuffix(path, p) && len(p) > bestLen {
				best, bestLen = f, len(p)
			}
		}
	}
	return best
}

// ForContentType picks a generic format by the response media type, or nil.
func ForContentType(ct string) *Format {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(strings.ToLower(mt))
	for _, f := range registry {
		if slices.Contains(f.ContentTypes, mt) {
			return f
		}
	}
	return nil
}

// Resolve returns the named format or an error listing the known ones.
func Resolve(name string) (*Format, error) {
	if f := Lookup(name); f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("unknown format %q (known: auto, %s)", name, strings.Join(Names(), ", "))
}
