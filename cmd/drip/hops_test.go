package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
)

func writeRecordFile(t *testing.T, path string, recs ...*record.Record) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := record.NewWriter(f)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// drip hops gives each stall at the client its owner: the path's hold,
// the stall both made (the server's 700 ms stall in it) and the server's
// 300 ms stall; --json says the same.
func TestHopsOwnsEachStall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, r := recordtest.Hops(t)
	client := writeRecordFile(t, filepath.Join(dir, "client.jsonl"), c)
	relay := writeRecordFile(t, filepath.Join(dir, "relay.jsonl"), r)
	code, out, errs := drip(t, "hops", client, relay)
	for _, want := range []string{"stall 580 ms path: 0 ms + 580 ms", "stall 1.15 s both: 700 ms + 450 ms", "stall 300 ms upstream: 300 ms + 0 ms", "[path-holds]", "2 bursts the path made"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", code, want, out, errs)
		}
	}
	code, out, _ = drip(t, "hops", client, relay, "--json")
	var rep struct {
		Pooled struct {
			Stalls map[string]int `json:"stalls"`
		} `json:"pooled"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Pooled.Stalls["upstream"] != 1 || rep.Pooled.Stalls["path"] != 1 || rep.Pooled.Stalls["both"] != 1 {
		t.Errorf("--json: exit %d, %v, pooled stalls %v: want 1 upstream, 1 path, 1 both", code, err, rep.Pooled.Stalls)
	}
}

// Two relays in a chain: drip hops puts the client's stream beside each
// relay file's exchange, a row for each, and refuses neither.
func TestHopsBesideTwoRelays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, r := recordtest.Hops(t)
	client := writeRecordFile(t, filepath.Join(dir, "client.jsonl"), c)
	relayA := writeRecordFile(t, filepath.Join(dir, "relayA.jsonl"), r)
	relayB := writeRecordFile(t, filepath.Join(dir, "relayB.jsonl"), r)
	code, out, errs := drip(t, "hops", client, relayA, relayB)
	for _, want := range []string{"(id, " + relayA + ")", "(id, " + relayB + ")"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", code, want, out, errs)
		}
	}
}

// Files that do not belong together are refused, exit 2, naming the file:
// a relay file whose ids and bodies match no stream of the client's, and
// a relay's file given as the client's.
func TestHopsRefusesFilesThatDoNotBelong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, r := recordtest.Hops(t)
	client := writeRecordFile(t, filepath.Join(dir, "client.jsonl"), c)
	relay := writeRecordFile(t, filepath.Join(dir, "relay.jsonl"), r)
	r.Exchange.Header[record.StreamHeader] = []string{"0ther-0"}
	r.Exchange.SetBody([]byte(`{"model":"other"}`))
	stranger := writeRecordFile(t, filepath.Join(dir, "stranger.jsonl"), r)
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{client, stranger}, "stranger.jsonl: none of its 1 exchange matches"},
		{[]string{client, relay, stranger}, "stranger.jsonl: none of its 1 exchange matches"},
		{[]string{relay, client}, "relay.jsonl: a relay's record"},
	} {
		code, _, errs := drip(t, append([]string{"hops"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.file) {
			t.Errorf("drip hops %q: exit %d, stderr %q; want 2 naming %q", c.args, code, errs, c.file)
		}
	}
}
