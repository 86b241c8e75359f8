package probe

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/driplab/drip/adapters"
)

// DefaultFormat is what a bare base URL is taken to speak.
const DefaultFormat = "openai-chat"

// ResolveURL picks the format and the full endpoint URL for a user's URL
// and --format ("auto" or a name). A base URL without a path gets the
// format's endpoint path; with auto, the path decides the format.
func ResolveURL(raw, format string) (string, *adapters.Format, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", nil, fmt.Errorf("bad URL %q: want http(s)://host[:port][/path]", RedactURL(raw))
	}
	bare := strings.Trim(u.Path, "/") == ""
	var f *adapters.Format
	switch {
	case format != "" && format != "auto":
		if f, err = adapters.Resolve(format); err != nil {
			return "", nil, err
		}
	case !bare:
		f = adapters.ForPath(u.Path)
	}
	if f == nil {
		if !bare {
			return "", nil, fmt.Errorf("cannot tell the format from the path %q: give --format (one of %s)", u.Path, strings.Join(adapters.Names(), ", "))
		}
		f = adapters.Lookup(DefaultFormat)
	}
	if bare {
		if f.Path == "" {
			return "", nil, fmt.Errorf("format %s has no default endpoint: give the full URL", f.Name)
		}
		u.Path = strings.TrimRight(u.Path, "/") + f.Path
	}
	return u.String(), f, nil
}
