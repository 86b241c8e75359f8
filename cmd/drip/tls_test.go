package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/stats"
)

// testCA is a certificate authority a test makes for itself, written as
// PEM files under dir.
type testCA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM string // path of the CA's certificate
}

func newTestCA(t *testing.T, dir, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ca := &testCA{cert: cert, key: key, certPEM: filepath.Join(dir, name+".pem")}
	writePEM(t, ca.certPEM, "CERTIFICATE", der)
	return ca
}

// issue signs a leaf certificate for 127.0.0.1, for a server or a client,
// and writes it and its key under dir.
func (ca *testCA) issue(t *testing.T, dir, name string, usage x509.ExtKeyUsage) (pair tls.Certificate, certPath, keyPath string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certPath, keyPath = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, certPath, "CERTIFICATE", der)
	writePEM(t, keyPath, "EC PRIVATE KEY", keyDER)
	pair, err = tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPath, keyPath
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tlsServer is the fixture server over real TLS on loopback, logging the
// User-Agent of every request it answers.
type tlsServer struct {
	*httptest.Server
	mu     sync.Mutex
	agents []string
}

func startTLSServer(t *testing.T, cert tls.Certificate, clientCAs *x509.CertPool) *tlsServer {
	t.Helper()
	s := &tlsServer{}
	fx := fixtures.NewServer()
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.agents = append(s.agents, r.Header.Get("User-Agent"))
		s.mu.Unlock()
		fx.ServeHTTP(w, r)
	}))
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if clientCAs != nil {
		s.TLS.ClientAuth, s.TLS.ClientCAs = tls.RequireAndVerifyClientCert, clientCAs
	}
	// A logger of its own: the standard logger is the process's, and every
	// command run in the test process counts what lands there for its
	// net/http warning. A handshake this server refuses would otherwise
	// show up in another test's command, running beside this one.
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *tlsServer) userAgents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.agents...)
}

// jsonSummary parses drip run --json's output.
func jsonSummary(t *testing.T, stdout string) stats.Summary {
	t.Helper()
	var s stats.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, stdout)
	}
	return s
}

func TestTLSFlagsAgainstARealServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca, other := newTestCA(t, dir, "drip-test-ca"), newTestCA(t, dir, "another-ca")
	leaf, _, _ := ca.issue(t, dir, "server", x509.ExtKeyUsageServerAuth)
	srv := startTLSServer(t, leaf, nil)
	url := srv.URL + "/v1/chat/completions"
	base := []string{"run", url, "-m", "fast", "--runs", "2", "--json"}

	code, stdout, stderr := drip(t, append(base, "--cacert", ca.certPEM)...)
	if s := jsonSummary(t, stdout); code != exitOK || s.Streams.Completed != 2 || s.Workload.TLSInsecure {
		t.Fatalf("--cacert with the server's CA: exit %d, %d completed, tls_insecure %v; stderr %s", code, s.Streams.Completed, s.Workload.TLSInsecure, stderr)
	}
	for _, ua := range srv.userAgents() {
		if !strings.HasPrefix(ua, "drip/") {
			t.Errorf("server log: User-Agent %q, want drip/…", ua)
		}
	}

	out := filepath.Join(dir, "wrong.jsonl")
	code, _, stderr = drip(t, append(base, "--cacert", other.certPEM, "--out", out)...)
	recs := readRecords(t, out)
	if code != exitCannotGo || len(recs) != 2 || recs[0].Error == nil || recs[0].Error.Class != "tls" {
		t.Fatalf("--cacert with another CA: exit %d, records %d (first error %+v); want exit 3 and class tls; stderr %s", code, len(recs), recs[0].Error, stderr)
	}

	code, stdout, stderr = drip(t, append(base, "-k")...) // the system's roots know neither CA
	if s := jsonSummary(t, stdout); code != exitOK || s.Streams.Completed != 2 || !s.Workload.TLSInsecure || !strings.Contains(stderr, insecureWarning) {
		t.Fatalf("-k: exit %d, %d completed, tls_insecure %v; stderr %s", code, s.Streams.Completed, s.Workload.TLSInsecure, stderr)
	}
	code, stdout, _ = drip(t, "run", url, "-m", "fast", "--runs", "1", "--insecure")
	if code != exitOK || !strings.Contains(stdout, "WARNING   TLS certificate NOT verified") {
		t.Fatalf("--insecure, text report: exit %d, want its WARNING line:\n%s", code, stdout)
	}

	n := len(srv.userAgents())
	code, _, _ = drip(t, append(base, "--cacert", ca.certPEM, "-H", "User-Agent: my-client/2")...)
	if got := srv.userAgents()[n:]; code != exitOK || len(got) != 2 || got[0] != "my-client/2" {
		t.Fatalf("-H User-Agent: exit %d, server saw %q", code, got)
	}
}

func TestTLSClientCertificate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := newTestCA(t, dir, "drip-test-ca")
	leaf, _, _ := ca.issue(t, dir, "server", x509.ExtKeyUsageServerAuth)
	_, cert, key := ca.issue(t, dir, "client", x509.ExtKeyUsageClientAuth)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	srv := startTLSServer(t, leaf, pool)
	base := []string{"run", srv.URL + "/v1/chat/completions", "-m", "fast", "--runs", "1", "--json", "--cacert", ca.certPEM}

	code, stdout, stderr := drip(t, append(base, "--cert", cert, "--key", key)...)
	if s := jsonSummary(t, stdout); code != exitOK || s.Streams.Completed != 1 {
		t.Fatalf("--cert/--key: exit %d, %d completed; stderr %s", code, s.Streams.Completed, stderr)
	}
	code, stdout, _ = drip(t, base...)
	if s := jsonSummary(t, stdout); code != exitCannotGo || s.Streams.Completed != 0 {
		t.Fatalf("no client certificate: exit %d, %d completed; want 3 and none", code, s.Streams.Completed)
	}
}

func TestTLSFlagUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cacert", filepath.Join(dir, "none.pem")}, "--cacert " + filepath.Join(dir, "none.pem") + ": no such file"},
		{[]string{"--cacert", "/dev/zero"}, "--cacert /dev/zero: not a regular file (a character device)"},
		{[]string{"--cert", "/dev/zero", "--key", "/dev/zero"}, "--cert /dev/zero: not a regular file"},
		{[]string{"--cacert", notPEM}, "no PEM certificate"},
		{[]string{"--cert", notPEM}, "--cert and --key go together"},
		{[]string{"--cert", notPEM, "--key", notPEM}, "--cert/--key:"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "https://127.0.0.1:1"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}

// TestOtherToolsFlags sends real requests with the names vLLM, AIPerf
// and curl give drip's flags, and checks the load drip ran.
func TestOtherToolsFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := newTestCA(t, dir, "drip-test-ca")
	leaf, _, _ := ca.issue(t, dir, "server", x509.ExtKeyUsageServerAuth)
	srv := startTLSServer(t, leaf, nil)
	base := []string{"run", srv.URL + "/v1/chat/completions", "-m", "fast", "--json", "--cacert", ca.certPEM, "-N"}
	for _, tc := range []struct {
		args  []string
		check func(stats.Workload) bool
	}{
		{[]string{"--request-rate", "40", "--num-prompts", "3"}, func(w stats.Workload) bool { return w.Rate == 40 && w.Runs == 3 }},
		{[]string{"--max-concurrency", "2", "--num-prompts", "4"}, func(w stats.Workload) bool { return w.Concurrency == 2 && w.Runs == 4 }},
		{[]string{"--request-count", "2", "--random-input-len", "40", "--random-output-len", "8", "--random-seed", "5", "--streaming"}, func(w stats.Workload) bool {
			return w.Runs == 2 && w.InputTokens == "40" && w.OutputTokens == "8" && w.Seed == 5
		}},
		{[]string{"--vus", "2", "--iterations", "2", "--synthetic-input-tokens-mean", "30", "--output-tokens-mean", "6"}, func(w stats.Workload) bool {
			return w.Concurrency == 2 && w.Runs == 2 && w.InputTokens == "30" && w.OutputTokens == "6"
		}},
	} {
		code, stdout, stderr := drip(t, append(base, tc.args...)...)
		s := jsonSummary(t, stdout)
		if code != exitOK || s.Streams.Completed != s.Workload.Runs || !tc.check(s.Workload) {
			t.Errorf("%v: exit %d, %d completed, workload %+v; stderr %s", tc.args, code, s.Streams.Completed, s.Workload, stderr)
		}
	}
	code, _, stderr := drip(t, "run", "http://127.0.0.1:1", "--request-ratee", "3")
	if code != exitUsage || !strings.Contains(stderr, "Did you mean this?\n\t--request-rate") {
		t.Errorf("--request-ratee: exit %d, stderr %q; want a suggestion of --request-rate", code, stderr)
	}
}

// The flags other tools' users type that drip spells another way get a
// line saying drip's, before anything is sent; a misleading suggestion
// (k6's --vus was offered --out) is gone.
func TestOtherToolsFlagsPointToDrips(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "http://h/v1"}, "AIPerf's --url is drip's argument"},
		{[]string{"--endpoint-type", "chat"}, "is drip's --format"},
		{[]string{"-X", "POST"}, "drip always POSTs"},
		{[]string{"--max-time", "30"}, "drip's --timeout, with a unit"},
		{[]string{"--api-key", "k"}, "-H 'Authorization: Bearer KEY'"},
		{[]string{"-z", "10s"}, "drip's --duration"},
		{[]string{"-q", "10"}, "write --rate 10; drip's -q is --quiet"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1/v1/chat/completions", "-m", "m"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "Did you mean") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}

// -k on a plain http:// URL has no certificate to skip: drip says so
// once, and neither warns that a certificate went unverified nor marks
// the summary tls_insecure (it warned on stderr and in the report).
func TestInsecureOnPlainHTTPSaysItOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		code, stdout, stderr := drip(t, "run", srv.URL+"/v1/chat/completions", "-m", "fast", "--runs", "1", "-k")
		if code != exitOK || strings.Contains(stderr, insecureWarning) || strings.Contains(stdout, "NOT verified") ||
			strings.Count(stderr, "plain http") != 1 {
			t.Errorf("-k on http://: exit %d, want 0, one note and no warning; stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
		}
		_, stdout, _ = drip(t, "run", srv.URL+"/v1/chat/completions", "-m", "fast", "--runs", "1", "-k", "--json")
		if jsonSummary(t, stdout).Workload.TLSInsecure {
			t.Error("-k on http:// marks the summary tls_insecure")
		}
	})
}
