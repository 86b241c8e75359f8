package hops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Fetcher asks a relay's hops endpoint (drip record --hops-addr, base its
// URL) for a stream's times by its id, for drip watch --relay.
func Fetcher(base *url.URL) func(context.Context, string) (Relayed, error) {
	client := &http.Client{Timeout: 2 * time.Second}
	return func(ctx context.Context, id string) (Relayed, error) {
		var rel Relayed
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base.String(), "/")+"/hops/"+url.PathEscape(id), nil)
		if err != nil {
			return rel, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return rel, errors.New("the relay does not answer (drip record --hops-addr on it?)")
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return rel, fmt.Errorf("HTTP %d: the relay has not seen this stream (is it on the stream's path, with --hops-addr?)", resp.StatusCode)
		}
		return rel, json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&rel)
	}
}
