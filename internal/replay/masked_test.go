package replay_test

import (
	"strings"
	"testing"

	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/record"
)

// A recording whose request bodies drip record masked says so before the
// replay sends the mask; one with none masked says nothing. Today's
// replay sent the mask without a word.
func TestMaskedBodiesNamesTheStreamsThatSendAMask(t *testing.T) {
	t.Parallel()
	stream := func(removed ...string) *record.Record {
		return &record.Record{Exchange: &record.Exchange{Method: "POST", Streamed: true, Removed: removed}}
	}
	recs := []*record.Record{stream("authorization", "body api_key"), stream("body query X-Amz-Signature"), stream("authorization")}
	if got := replay.MaskedBodies(recs); !strings.HasPrefix(got, "sending the request body as drip record masked it") || !strings.HasSuffix(got, "for 2 streams") {
		t.Errorf("MaskedBodies = %q, want the 2 streams named", got)
	}
	if got := replay.MaskedBodies(recs[2:]); got != "" {
		t.Errorf("MaskedBodies of a stream masked in its headers only = %q, want nothing", got)
	}
}
