package relay_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/record"
)

// hopsProxy is a relay keeping live times in front of up, and its hops
// endpoint.
func hopsProxy(t *testing.T, up http.Handler) (*relay.Proxy, string, string) {
	t.Helper()
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	u, _ := url.Parse(upSrv.URL)
	p := relay.New(context.Background(), relay.Options{Upstream: u, Live: true}, func(*record.Record) error { return nil })
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)
	hopsSrv := httptest.NewServer(p.HopsHandler())
	t.Cleanup(hopsSrv.Close)
	return p, proxy.URL, hopsSrv.URL
}

func getHops(t *testing.T, base, id string) (int, hops.Relayed) {
	t.Helper()
	resp, err := rawClient.Get(base + "/hops/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rel hops.Relayed
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &rel); err != nil {
			t.Fatalf("GET /hops/%s: %v in %q", id, err, b)
		}
	}
	return resp.StatusCode, rel
}

// An id longer than drip's own (a run id and a number) by far is not kept
// for the hops endpoint: a client's 1 MB ids would hold the relay's
// memory. The exchange is forwarded and recorded as any other.
func TestTheHopsEndpointKeepsNoOverlongID(t *testing.T) {
	t.Parallel()
	p, proxyURL, hopsURL := hopsProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}))
	long := strings.Repeat("a", 300)
	sendWithID(t, p, proxyURL, `{"model":"m","stream":true}`, long)
	if code, _ := getHops(t, hopsURL, long); code != http.StatusNotFound {
		t.Errorf("an id of 300 bytes: GET /hops/ID %d, want 404 (not kept)", code)
	}
}

// A second request carrying a running stream's id does not take its
// times: the hops endpoint still serves the first stream's reads, not
// done, while the newcomer has come and gone.
func TestASecondStreamCannotTakeARunningStreamsID(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	p, proxyURL, hopsURL := hopsProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Query().Has("first") {
			io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"first\"}}]}\n\n")
			w.(http.Flusher).Flush()
			<-release
		}
		io.WriteString(w, sse)
	}))
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		req, _ := http.NewRequest("POST", proxyURL+"/v1/chat/completions?first", strings.NewReader(`{"stream":true}`))
		req.Header.Set(record.StreamHeader, "run-7")
		resp, err := rawClient.Do(req)
		if err != nil {
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	for {
		if code, rel := getHops(t, hopsURL, "run-7"); code == http.StatusOK && len(rel.Reads) > 0 {
			break
		}
	}
	req, _ := http.NewRequest("POST", proxyURL+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
	req.Header.Set(record.StreamHeader, "run-7")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	code, rel := getHops(t, hopsURL, "run-7")
	close(release)
	<-firstDone
	p.Wait()
	if code != http.StatusOK || rel.Done || len(rel.Reads) == 0 || rel.Reads[0].N != len("data: {\"choices\":[{\"delta\":{\"content\":\"first\"}}]}\n\n") {
		t.Errorf("GET /hops/run-7 while the first stream runs: %d, %+v; want the first stream's one read, not done", code, rel)
	}
}
