package probe

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/sanitize"
)

// ParseHeader checks one -H 'Name: value'. A CR, LF or NUL anywhere is
// refused: it would end the header and inject others. The value is never
// echoed, since it is often a key.
func ParseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || name == "":
		return "", "", fmt.Errorf("-H: bad header: want 'Name: value'")
	case strings.ContainsAny(h, "\r\n\x00"):
		return "", "", fmt.Errorf("-H %s: a header may not hold CR, LF or NUL (it would inject headers)", sanitize.Line(name))
	case !httpguts.ValidHeaderFieldName(name): // an RFC 9110 token: no separator, space or control
		return "", "", fmt.Errorf("-H %s: not a valid header name", sanitize.Line(name))
	}
	return name, value, nil
}

// ParseHeaders is every -H given, checked by ParseHeader, in one header
// (empty, not nil, when none was).
func ParseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, line := range hs {
		name, value, err := ParseHeader(line)
		if err != nil {
			return nil, err
		}
		h.Add(name, value)
	}
	return h, nil
}

// Describe says what drip picked for t, for the user to check.
func (t Target) Describe() string {
	if t.Format == adapters.Auto {
		return fmt.Sprintf("%s as auto: the path names no format, so the OpenAI chat body goes out and the response picks the decoder", RedactURL(t.URL))
	}
	s := fmt.Sprintf("%s as %s", RedactURL(t.URL), t.Format.Name)
	if t.Sign != nil {
		s += " (SigV4-signed)"
	}
	return s
}

// TakeBodyModel reconciles a fixed Body (given by flag, --body or -d),
// sent as is, with the model asked for (-m): none asked, the body's own
// "model" is the one the records name; one asked that differs from the
// body's, or that the body lacks and rawURL's endpoint does not carry
// (ModelInEndpoint), would change nothing yet be recorded, and is refused.
func (t *Target) TakeBodyModel(rawURL, flag string) error {
	var fields struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(t.Body, &fields) // a body that is no JSON object names no model
	switch m := t.Request.Model; {
	case m == "":
		t.Request.Model = fields.Model
	case fields.Model != "" && m != fields.Model:
		return fmt.Errorf("-m %s and %s: the body asks for model %q; drop -m (the records name the body's model)", sanitize.Line(m), flag, sanitize.Line(fields.Model))
	case fields.Model == "" && !modelInURL(rawURL, t.Format):
		return fmt.Errorf("-m %s and %s: the body names no model and -m changes neither the body nor the URL, so it would change nothing; put \"model\" in the body", sanitize.Line(m), flag)
	}
	return nil
}

// modelInURL is whether ResolveEndpoint put the model in the endpoint's
// path (Gemini, Bedrock given a bare base URL).
func modelInURL(rawURL string, f *adapters.Format) bool {
	u, err := ParseHTTPURL(rawURL)
	return err == nil && ModelInEndpoint(u, f)
}
