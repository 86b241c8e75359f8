package hops_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// Three relay exchanges claiming one client stream's id are no match to
// guess at: drip hops names the id ambiguous and pairs it with none, and
// the next stream, matched by its own id, keeps its true TTFT split (no
// negative path).
func TestAnAmbiguousIDIsReportedNotGuessed(t *testing.T) {
	t.Parallel()
	rf := relayFrames()
	clients := []*record.Record{
		stream(t, "run1", 0, false, shifted(rf, func(int) float64 { return 0 })),
		stream(t, "run1", 1, false, shifted(rf, func(int) float64 { return 0 })),
	}
	var relays []*record.Record
	for i := range 3 { // each claims run1-0, the last 900 ms late
		late := make([]frame, len(rf))
		for j, f := range rf {
			late[j] = frame{f.text, f.t + 450*float64(i), j}
		}
		relays = append(relays, withID(stream(t, "r", i, true, late), "run1-0"))
	}
	relays = append(relays, withID(stream(t, "r", 3, true, rf), "run1-1"))
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: clients}, []hops.File{{Name: "relay.jsonl", Records: relays}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rep.JSON(&b)
	var got struct {
		Streams []struct {
			ID   string `json:"id"`
			TTFT struct {
				PathMS *float64 `json:"path_ms"`
			} `json:"ttft"`
		} `json:"streams"`
		Ambiguous []struct {
			ID        string `json:"id"`
			File      string `json:"relay_file"`
			Exchanges int    `json:"exchanges"`
		} `json:"ambiguous_ids"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Ambiguous) != 1 || got.Ambiguous[0].ID != "run1-0" || got.Ambiguous[0].File != "relay.jsonl" || got.Ambiguous[0].Exchanges != 3 {
		t.Errorf("ambiguous ids %+v, want run1-0 claimed by 3 exchanges of relay.jsonl", got.Ambiguous)
	}
	if len(got.Streams) != 1 || got.Streams[0].ID != "run1-1" || got.Streams[0].TTFT.PathMS == nil || *got.Streams[0].TTFT.PathMS < 0 {
		t.Errorf("streams %+v, want run1-1 alone, its path TTFT not negative", got.Streams)
	}
	var text bytes.Buffer
	rep.Text(&text)
	if !strings.Contains(text.String(), "run1-0") || !strings.Contains(text.String(), "ambiguous") {
		t.Errorf("the text does not name the ambiguous id:\n%s", text.String())
	}
}

// Two client streams with one id (a crafted or merged client file) are
// ambiguous too: neither is paired by it.
func TestAClientIDTwiceIsAmbiguous(t *testing.T) {
	t.Parallel()
	rf := relayFrames()
	clients := []*record.Record{
		stream(t, "run1", 0, false, shifted(rf, func(int) float64 { return 0 })),
		stream(t, "run1", 0, false, shifted(rf, func(int) float64 { return 900 })),
		stream(t, "run1", 1, false, shifted(rf, func(int) float64 { return 0 })),
	}
	relays := []*record.Record{withID(stream(t, "r", 0, true, rf), "run1-0"), withID(stream(t, "r", 1, true, rf), "run1-1")}
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: clients}, []hops.File{{Name: "relay.jsonl", Records: relays}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Streams) != 1 || rep.Streams[0].ID != "run1-1" || len(rep.Ambiguous) != 1 || rep.Ambiguous[0].ClientStreams != 2 {
		t.Errorf("streams %+v, ambiguous %+v: want run1-1 alone, run1-0 ambiguous with 2 client streams", rep.Streams, rep.Ambiguous)
	}
}
