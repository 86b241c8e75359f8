package calibrate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
)

// Server is the fixture server a calibration streams from, with its write
// log and its own CPU and schedule lag.
type Server interface {
	URL() string
	Writes(model string) ([]fixtures.Write, error)
	// Usage is the server's CPU and schedule lag since the last call.
	Usage() (Usage, error)
	Close() error
}

// Usage is a server process's own load. The zero value is a server in
// the client's process, whose load is the client's.
type Usage struct {
	Separate bool
	CPU      *time.Duration
	Lag      *stats.Dist // ms
}

// InProcess serves the fixtures on loopback from this process.
func InProcess() Server {
	fx := fixtures.NewServer()
	return &inProcess{fx: fx, hs: httptest.NewServer(fx)}
}

type inProcess struct {
	fx *fixtures.Server
	hs *httptest.Server
}

func (s *inProcess) URL() string                                   { return s.hs.URL }
func (s *inProcess) Writes(model string) ([]fixtures.Write, error) { return s.fx.Writes(model), nil }
func (s *inProcess) Usage() (Usage, error)                         { return Usage{}, nil }
func (s *inProcess) Close() error                                  { s.hs.Close(); return nil }

// The separate server's own endpoints, beside the fixtures.
const (
	writesPath = "/calibrate/writes"
	usagePath  = "/calibrate/usage"
)

// ServerHandler is what a separate server process serves, the fixtures,
// each tagged stream's write log, and its own usage.
func ServerHandler() http.Handler {
	fx := fixtures.NewServer()
	var mu sync.Mutex
	cpu0, lag := processCPU(), probe.SchedLag()
	mux := http.NewServeMux()
	mux.Handle("/", fx)
	mux.HandleFunc("GET "+writesPath, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(fx.Writes(r.URL.Query().Get("model")))
	})
	mux.HandleFunc("GET "+usagePath, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cpu := processCPU()
		u := Usage{Separate: true, CPU: since(cpu0, cpu), Lag: new(lag())}
		cpu0, lag = cpu, probe.SchedLag()
		mu.Unlock()
		json.NewEncoder(w).Encode(u)
	})
	return mux
}

// ServeChild serves ServerHandler on a loopback port, writes its URL as
// the first line of out, and serves until in ends (the parent closed it or
// died) or ctx is done.
func ServeChild(ctx context.Context, in io.Reader, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: ServerHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		io.Copy(io.Discard, in)
		srv.Close()
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(out, "http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Start starts the server Measure streams from, in drip's process or,
// when separate (--server-proc), this binary again with args, which runs
// ServeChild.
func Start(ctx context.Context, separate bool, args ...string) (Server, error) {
	if !separate {
		return InProcess(), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--server-proc: %w", err)
	}
	return Process(ctx, exe, args...)
}

// Process starts a separate server process (exe args…, which runs
// ServeChild) and waits for its URL.
func Process(ctx context.Context, exe string, args ...string) (Server, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("server process: %w", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://") {
		stdin.Close()
		cmd.Wait()
		return nil, fmt.Errorf("server process %s did not start: %q %s", exe, line, strings.TrimSpace(stderr.String()))
	}
	return &process{cmd: cmd, stdin: stdin, url: strings.TrimSpace(line), client: &http.Client{Timeout: 30 * time.Second}}, nil
}

type process struct {
	cmd    *exec.Cmd
	stdin  io.Closer
	url    string
	client *http.Client
}

func (p *process) URL() string { return p.url }

func (p *process) Writes(model string) ([]fixtures.Write, error) {
	var w []fixtures.Write
	return w, p.get(writesPath+"?model="+url.QueryEscape(model), &w)
}

func (p *process) Usage() (Usage, error) {
	var u Usage
	return u, p.get(usagePath, &u)
}

func (p *process) get(path string, v any) error {
	resp, err := p.client.Get(p.url + path)
	if err != nil {
		return fmt.Errorf("server process: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("server process: %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// Close ends the server process by closing its stdin.
func (p *process) Close() error {
	p.stdin.Close()
	return p.cmd.Wait()
}
