package record

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// PhasePassthrough marks a recorded exchange that did not stream (drip
// record). It is kept for replay and serving, left out of every figure.
const PhasePassthrough = "passthrough"

// StreamHeader is the request header drip run and drip watch send with
// each stream's key (Record.StreamKey), so a relay's record of the
// exchange (drip record keeps it, as it is no credential) can be matched
// with the client's record of the same stream (drip hops).
const StreamHeader = "X-Drip-Stream"

// StreamKey is the stream id a relay saw in StreamHeader, "" when the
// client sent none.
func (x *Exchange) StreamKey() string {
	for k, vs := range x.Header {
		if len(vs) > 0 && strings.EqualFold(k, StreamHeader) {
			return vs[0]
		}
	}
	return ""
}

// Exchange is what drip record saw of one client request and its
// response. It is enough to send the request again (drip replay) and to serve the response
// back byte for byte at its recorded offsets (drip fixtures serve --from).
// It never holds a credential. Those are dropped and named in Removed.
type Exchange struct {
	Method string `json:"method"`
	// Path is the path and query the client asked for, secret query
	// parameters removed.
	Path string `json:"path"`
	// Header is the request's headers without credentials or hop-by-hop
	// headers.
	Header  map[string][]string `json:"header,omitempty"`
	Removed []string            `json:"removed,omitempty"`  // dropped as credentials: header names, "query NAME"; masked in the body: "body NAME"
	Body    json.RawMessage     `json:"body,omitempty"`     // the request body, when it is JSON
	BodyB64 []byte              `json:"body_b64,omitempty"` // any other request body
	// BodyOmitted says why the request body is not kept (it was too long
	// to hold). The exchange can be served back but not replayed.
	BodyOmitted string `json:"body_omitted,omitempty"`
	// Streamed says the response was a stream (the record has frames).
	Streamed    bool   `json:"streamed"`
	ContentType string `json:"content_type,omitempty"` // of the response
	// Location is the response's Location header (a redirect's target),
	// its user info and secret query values redacted, so a client served
	// the recording back can follow it as it followed the upstream's.
	Location string `json:"location,omitempty"`
	// Response is the response body, decompressed, when it is UTF-8.
	// ResponseB64 holds any other (Bedrock's binary event stream).
	Response    string `json:"response,omitempty"`
	ResponseB64 []byte `json:"response_b64,omitempty"`
	Reads       []Read `json:"reads,omitempty"` // how the response body arrived
	// Downstream is what the relay's kernel said of its socket to the
	// client over the exchange. It is absent where it cannot ask (not Linux).
	Downstream *DownstreamTCP `json:"downstream,omitempty"`
	// ContentEncoding is set when the body is kept still encoded (an
	// encoding drip does not decode). It is served back that way.
	ContentEncoding string `json:"content_encoding,omitempty"`
	// Clipped says the response was longer than the recorder keeps. The
	// client got all of it.
	Clipped bool `json:"clipped,omitempty"`
}

// DownstreamTCP is the relay's kernel account (TCP_INFO) of its socket to
// the client over one exchange. It tells what held a stream after the
// relay, segments lost on the way or a client that stopped reading.
type DownstreamTCP struct {
	RTTMS float64 `json:"rtt_ms"` // the smoothed round trip at the end
	// Retransmits are the segments the relay sent again during the
	// exchange. Lost are those the kernel still held lost at its end.
	Retransmits int `json:"retransmits"`
	Lost        int `json:"lost"`
	// RwndLimitedMS is how long the client's receive window was full
	// during the exchange, so the client read no faster than that.
	RwndLimitedMS float64 `json:"rwnd_limited_ms"`
	// Spurious are the retransmits the client said it already had (DSACK).
	// They show a late acknowledgement, not a lost segment.
	Spurious int `json:"spurious_retransmits"`
}

// Read is one read of a response body, when it returned and how many bytes
// of the (decompressed) body it brought.
type Read struct {
	TMS float64 `json:"t_ms"`
	N   int     `json:"n"`
}

// SetBody stores a request body as JSON when it is JSON, else as base64.
func (x *Exchange) SetBody(b []byte) {
	x.Body, x.BodyB64 = nil, nil
	switch {
	case len(b) == 0:
	case json.Valid(b):
		x.Body = append(json.RawMessage(nil), b...)
	default:
		x.BodyB64 = append([]byte(nil), b...)
	}
}

// RequestBody returns the stored request body.
func (x *Exchange) RequestBody() []byte {
	if x.Body != nil {
		return x.Body
	}
	return x.BodyB64
}

// SetResponse stores a response body as text when it is UTF-8, else as base64.
func (x *Exchange) SetResponse(b []byte) {
	x.Response, x.ResponseB64 = "", nil
	if utf8.Valid(b) {
		x.Response = string(b)
	} else {
		x.ResponseB64 = append([]byte(nil), b...)
	}
}

// ResponseBody returns the stored response body.
func (x *Exchange) ResponseBody() []byte {
	if x.ResponseB64 != nil {
		return x.ResponseB64
	}
	return []byte(x.Response)
}

// ResponseLen is the stored response body's length, without copying it.
func (x *Exchange) ResponseLen() int {
	if x.ResponseB64 != nil {
		return len(x.ResponseB64)
	}
	return len(x.Response)
}
