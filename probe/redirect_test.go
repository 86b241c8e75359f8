package probe_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// seen is what a hostile server's far end received.
type seen struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (s *seen) list() ([]*http.Request, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs, s.body
}

// sseEnd serves a tiny complete OpenAI stream and keeps every request.
func sseEnd(s *seen) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs, s.body = append(s.reqs, r), append(s.body, string(b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"+
			"data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\ndata: [DONE]\n\n")
	}
}

var credHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "X-Amz-Security-Token"}

// redirectTarget is a request carrying every kind of credential header.
func redirectTarget(u string) probe.Target {
	h := http.Header{}
	for _, k := range credHeaders {
		h.Set(k, "sk-secret-"+k)
	}
	return probe.Target{URL: u, Format: adapters.Lookup("openai-chat"), Header: h,
		Request: adapters.Request{Model: "m", Prompt: "the body"}}
}

// redirector answers every request with status and a Location under to.
func redirector(status int, to *string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/end" {
			return
		}
		http.Redirect(w, r, *to+"/end?key=sk-in-location", status)
	}
}

func TestRedirectPolicy(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		far    string // "same", "other-port" (127.0.0.1, another port), "localhost"
		follow bool
		class  string
		why    string
	}{
		{"same origin 307 is followed", 307, "same", false, "", ""},
		{"same origin 308 is followed", 308, "same", false, "", ""},
		{"301 would become a GET", 301, "same", false, record.ErrRedirect, "GET"},
		{"302 would become a GET", 302, "same", false, record.ErrRedirect, "GET"},
		{"another host", 307, "localhost", false, record.ErrRedirect, "another origin"},
		{"same IP, another port", 307, "other-port", false, record.ErrRedirect, "another origin"},
		{"another origin with --follow-redirects", 307, "localhost", true, "", ""},
		{"301 to another origin with --follow-redirects", 301, "localhost", true, record.ErrRedirect, "GET"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var far seen
			farSrv := httptest.NewServer(sseEnd(&far))
			defer farSrv.Close()
			var to string
			var near seen
			nearSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/end" {
					sseEnd(&near)(w, r)
					return
				}
				redirector(c.status, &to)(w, r)
			}))
			defer nearSrv.Close()
			switch c.far {
			case "same":
				to = nearSrv.URL
			case "other-port":
				to = farSrv.URL
			case "localhost":
				to = strings.Replace(farSrv.URL, "127.0.0.1", "localhost", 1)
			}
			rec := probe.Stream(context.Background(), redirectTarget(nearSrv.URL+"/v1/chat/completions?key=sk-first"),
				probe.Options{FollowRedirects: c.follow}, &record.Record{}, nil)
			nearReqs, _ := near.list()
			farReqs, farBodies := far.list()
			if c.class != "" {
				if rec.Error == nil || rec.Error.Class != c.class || !strings.Contains(rec.Error.Message, c.why) || rec.HTTPStatus != c.status {
					t.Fatalf("error %+v http %d, want class %s saying %q", rec.Error, rec.HTTPStatus, c.class, c.why)
				}
				if strings.Contains(rec.Error.Message, "sk-") || !strings.Contains(rec.Error.Message, "key=REDACTED") {
					t.Errorf("message %q: want the location named, redacted", rec.Error.Message)
				}
				if len(nearReqs)+len(farReqs) != 0 || len(rec.Redirects) != 0 {
					t.Errorf("refused redirect reached %d+%d requests, records %+v", len(nearReqs), len(farReqs), rec.Redirects)
				}
				return
			}
			if rec.Status != record.StatusComplete || len(rec.Redirects) != 1 || rec.Redirects[0].Status != c.status {
				t.Fatalf("status %s error %+v redirects %+v, want complete after one %d", rec.Status, rec.Error, rec.Redirects, c.status)
			}
			got, bodies := farReqs, farBodies
			if c.far == "same" {
				got, bodies = near.list()
			}
			if len(got) != 1 || got[0].Method != http.MethodPost || !strings.Contains(bodies[0], "the body") {
				t.Fatalf("far end got %d requests (want 1 POST with the body): %v", len(got), bodies)
			}
			if got[0].Header.Get("Referer") != "" {
				t.Errorf("Referer %q sent on", got[0].Header.Get("Referer"))
			}
			for _, k := range credHeaders {
				v := got[0].Header.Get(k)
				if cross := c.far != "same"; cross != (v == "") {
					t.Errorf("%s = %q at the far end (cross-origin %v)", k, v, cross)
				}
			}
			if rec.Redirects[0].CrossOrigin != (c.far != "same") || strings.Contains(rec.Redirects[0].To, "sk-") {
				t.Errorf("redirect recorded as %+v", rec.Redirects[0])
			}
		})
	}
}

// An https server redirecting to http: refused even with --follow-redirects,
// so no key crosses the network in clear text.
func TestRedirectNeverDowngradesHTTPS(t *testing.T) {
	var plain seen
	plainSrv := httptest.NewServer(sseEnd(&plain))
	defer plainSrv.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plainSrv.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	}))
	defer tlsSrv.Close()
	rec := probe.Stream(context.Background(), redirectTarget(tlsSrv.URL+"/v1/chat/completions"),
		probe.Options{Client: tlsSrv.Client(), FollowRedirects: true}, &record.Record{}, nil)
	if rec.Error == nil || rec.Error.Class != record.ErrRedirect || !strings.Contains(rec.Error.Message, "downgrade") {
		t.Fatalf("error %+v, want a refused downgrade", rec.Error)
	}
	if reqs, _ := plain.list(); len(reqs) != 0 {
		t.Errorf("the http server got %d requests, with X-Api-Key %q", len(reqs), reqs[0].Header.Get("X-Api-Key"))
	}
}

// Keys drip adds itself from the environment (x-api-key from
// ANTHROPIC_API_KEY) are credentials too: none follows a redirect to
// another origin.
func TestRedirectDropsKeysFromTheEnvironment(t *testing.T) {
	var far seen
	farSrv := httptest.NewServer(sseEnd(&far))
	defer farSrv.Close()
	to := strings.Replace(farSrv.URL, "127.0.0.1", "localhost", 1) + "/v1/messages"
	near := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "sk-ant-env" {
			t.Errorf("the first hop got X-Api-Key %q, want the key from the environment", r.Header.Get("X-Api-Key"))
		}
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
	}))
	defer near.Close()
	getenv := func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "sk-ant-env"
		}
		return ""
	}
	tgt := probe.Target{URL: near.URL + "/v1/messages", Format: adapters.Lookup("anthropic"), Request: adapters.Request{Model: "m", Prompt: "hi"}}
	rec := probe.Stream(context.Background(), tgt, probe.Options{Getenv: getenv, FollowRedirects: true}, &record.Record{}, nil)
	reqs, _ := far.list()
	if len(reqs) != 1 || len(rec.Redirects) != 1 {
		t.Fatalf("far end got %d requests, redirects %+v", len(reqs), rec.Redirects)
	}
	if v := reqs[0].Header.Get("X-Api-Key"); v != "" {
		t.Errorf("X-Api-Key %q reached another origin", v)
	}
}
