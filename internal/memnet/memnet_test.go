package memnet_test

import (
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/internal/memnet"
)

// A handler that sleeps an hour answers at once under synctest, and the
// client sees exactly the hour on the bubble's clock.
func TestServerUnderSynctest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Hour)
			io.WriteString(w, "late")
		}))
		defer srv.Close()
		start := time.Now()
		resp, err := srv.Client().Get(srv.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "late" || time.Since(start) != time.Hour {
			t.Errorf("body %q after %v, want \"late\" after 1h", body, time.Since(start))
		}
	})
}

func TestDialAfterCloseIsRefused(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.NewServer(http.NotFoundHandler())
		srv.Close()
		if _, err := srv.Dial(t.Context(), "tcp", "x:80"); err != memnet.ErrRefused {
			t.Errorf("dial after close: %v, want %v", err, memnet.ErrRefused)
		}
	})
}
