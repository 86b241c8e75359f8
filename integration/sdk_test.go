package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/internal/testenv"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// sdkKey is the key the SDK clients send; no recording may hold it.
const sdkKey = "sk-drip-test-SECRET-4242"

// sdks are the official Node SDKs, how each is pointed at a base URL and
// the drip format it speaks.
var sdks = []struct {
	name, baseSuffix, format string
}{
	{"openai", "/v1", "openai-chat"},
	{"anthropic", "", "anthropic"},
}

// nodeSDKs finds node and the SDK packages, or ends the test loudly.
func nodeSDKs(t *testing.T) (node, script string) {
	node = testenv.LookPath(t, "node", "apt-get install -y nodejs (Node 20)")
	dir, _ := filepath.Abs("node")
	for _, pkg := range []string{"openai", "@anthropic-ai/sdk"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			testenv.Missing(t, "the npm package "+pkg, "cd integration/node && npm ci")
		}
	}
	return node, filepath.Join(dir, "stream.mjs")
}

// streamSDK streams one answer with an SDK and returns its text.
func streamSDK(t *testing.T, node, script, sdk, baseURL, model string) string {
	t.Helper()
	text, sdkErr, err := runSDK(node, script, sdk, baseURL, model)
	if err != nil || sdkErr != "" {
		t.Fatalf("%s SDK at %s: %v; text %q; error %q", sdk, baseURL, err, text, sdkErr)
	}
	return text
}

// runSDK streams one answer with an SDK: the text it got and the error it
// raised ("" when none); err when the script's output is not its JSON.
func runSDK(node, script, sdk, baseURL, model string) (text, sdkErr string, err error) {
	cmd := exec.Command(node, script, sdk, baseURL, model, "Say something steady.")
	cmd.Env = append(os.Environ(), "DRIP_TEST_KEY="+sdkKey)
	out, _ := cmd.Output() // exit 1 when the SDK raised: its JSON says what
	var res struct{ Text, Error string }
	if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
		return "", "", fmt.Errorf("output %q: %w", out, err)
	}
	return res.Text, res.Error, nil
}

// TestNodeSDKsSeeAnUpstreamCutThroughRecord streams with the official SDKs
// through drip record from an upstream that resets mid-answer: each SDK
// raises an error, as it does against the upstream directly, instead of
// taking the half answer for a whole one.
func TestNodeSDKsSeeAnUpstreamCutThroughRecord(t *testing.T) {
	t.Parallel()
	node, script := nodeSDKs(t)
	up := httptest.NewServer(fixtures.NewServer())
	defer up.Close()
	u, _ := url.Parse(up.URL)
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(*record.Record) error { return nil })
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	for _, s := range sdks {
		for _, base := range []string{up.URL, proxy.URL} {
			text, sdkErr, err := runSDK(node, script, s.name, base+s.baseSuffix, "abort-midstream")
			if err != nil || sdkErr == "" || text == "" {
				t.Errorf("%s SDK at %s (%s): text %q, error %q, %v; want the words before the reset, then an error", s.name, base, map[bool]string{true: "direct", false: "through drip record"}[base == up.URL], text, sdkErr, err)
			}
		}
	}
	p.Wait()
}

// TestNodeSDKsThroughRecordAndFromTheRecording streams with the official
// OpenAI and Anthropic SDKs through drip record in front of the fixture
// server, then from drip fixtures serve --from that recording: each SDK
// gets exactly the text drip recorded, without errors, and the SDK's key
// is in no record.
func TestNodeSDKsThroughRecordAndFromTheRecording(t *testing.T) {
	t.Parallel()
	node, script := nodeSDKs(t)
	up := httptest.NewServer(fixtures.NewServer())
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	w := record.NewWriter(&buf)
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error {
		mu.Lock()
		defer mu.Unlock()
		return w.Write(r)
	})
	proxy := httptest.NewServer(p)
	defer proxy.Close()

	got := map[string]string{}
	for _, s := range sdks {
		got[s.name] = streamSDK(t, node, script, s.name, proxy.URL+s.baseSuffix, "steady")
	}
	p.Wait()
	if bytes.Contains(buf.Bytes(), []byte("SECRET")) {
		t.Fatal("the SDK's key reached the recording")
	}
	recs, _, err := record.ReadAll(bytes.NewReader(buf.Bytes()), stats.Rederive)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]*record.Record{}
	for _, r := range recs {
		recorded[r.Format] = r
	}
	for _, s := range sdks {
		r := recorded[s.format]
		if r == nil {
			t.Fatalf("no %s record among %d", s.format, len(recs))
		}
		if r.Status != record.StatusComplete || r.Text() == "" || r.Text() != got[s.name] {
			t.Errorf("%s through drip record: SDK got %q; record (%s) holds %q", s.name, got[s.name], r.Status, r.Text())
		}
		if rm := strings.Join(r.Exchange.Removed, ","); !strings.Contains(rm, "authorization") && !strings.Contains(rm, "x-api-key") {
			t.Errorf("%s: removed %v names no key header", s.name, r.Exchange.Removed)
		}
	}

	served, err := fixtures.NewRecorded(recs, fixtures.RecordedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from := httptest.NewServer(served)
	defer from.Close()
	for _, s := range sdks {
		if text := streamSDK(t, node, script, s.name, from.URL+s.baseSuffix, "steady"); text != recorded[s.format].Text() {
			t.Errorf("%s from fixtures serve --from: got %q, recorded %q", s.name, text, recorded[s.format].Text())
		}
	}
}
