package replay_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// More streams than there are turns to connect replayed at once, each
// recorded as canceled 1.5 s in, against a server a second's dial away,
// on the bubble's clock: the streams past the first turns wait a second
// for theirs, and each is still hung up 1.5 s after its own request was
// sent, so every one is answered before it is cut, as its recording was.
// A hang-up clock started before the wait left those streams half a second
// after their turn, less than the dial: cut before any answer. The turns
// are the test's own, made in the bubble (probe.Options.ConnectTurns): a
// wait for the process-wide ones is not durably blocked there, so no time
// would pass in it.
func TestHangUpClockStartsWhenTheRequestIsSent(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n")
			w.(http.Flusher).Flush()
			select { // the rest of the answer, which the hang-up cuts
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		defer time.Sleep(time.Second) // after Close: a dial the transport still has going ends
		defer srv.Close()
		slowDial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return srv.Dial(ctx, network, addr)
		}
		x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, ContentType: "text/event-stream"}
		x.SetBody([]byte(`{"model":"m","stream":true}`))
		orig := &record.Record{Phase: record.PhaseMeasure, Format: "openai-chat", Exchange: x, DurationMS: 1500,
			Status: record.StatusCanceled, Error: &record.Error{Class: record.ErrCanceled, Message: "the client closed the connection"}}
		const turns, n = 4, 6
		streams := make([]*record.Record, n)
		for i := range streams {
			streams[i] = orig
		}
		var replayed []*record.Record
		o := replay.Options{Against: srv.URL, Concurrency: n, Probe: probe.Options{Dial: slowDial, ConnectTurns: make(chan struct{}, turns)}}
		replay.Run(context.Background(), streams, o, func(r *record.Record) {
			replayed = append(replayed, r)
		})
		waited, unanswered := 0, 0
		var example *record.Record
		for _, r := range replayed {
			if r.ConnectWaitMS != nil {
				waited++
			}
			if r.HeadersMS == nil || r.TTFTMS == nil || r.Status != record.StatusCanceled || r.Error == nil || !strings.Contains(r.Error.Message, "hung up where the recorded stream was") {
				unanswered++
				example = r
			}
		}
		if len(replayed) != n || waited != n-turns {
			t.Fatalf("%d replayed of %d, %d waited for a turn to connect; want all, %d waiting", len(replayed), n, waited, n-turns)
		}
		if unanswered > 0 {
			t.Errorf("%d of %d streams (%d waited for a turn) were not answered before the hang-up, e.g. %s after %v ms, waited %v ms, error %+v",
				unanswered, n, waited, example.Status, example.DurationMS, fmtPtr(example.ConnectWaitMS), example.Error)
		}
	})
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
