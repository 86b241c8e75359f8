package probe_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driplab/drip/probe"
)

// No file asked for is no TLS setup (the transport's defaults); -k alone
// skips verification; a file that cannot serve is an error naming curl's
// flag for it. (cmd/drip's TLS tests drive a real TLS server.)
func TestTLSFilesConfig(t *testing.T) {
	if c, err := (probe.TLSFiles{}).Config(t.Context()); c != nil || err != nil {
		t.Errorf("no files: %v, %v; want nil, nil", c, err)
	}
	if c, err := (probe.TLSFiles{Insecure: true}).Config(t.Context()); err != nil || c == nil || !c.InsecureSkipVerify || c.RootCAs != nil {
		t.Errorf("-k: %+v, %v; want verification off, nothing else", c, err)
	}
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files probe.TLSFiles
		want  string
	}{
		{probe.TLSFiles{CACert: filepath.Join(dir, "none.pem")}, "--cacert " + filepath.Join(dir, "none.pem") + ": no such file"},
		{probe.TLSFiles{CACert: notPEM}, "--cacert " + notPEM + ": no PEM certificate in it"},
		{probe.TLSFiles{Key: notPEM}, "--cert and --key go together"},
		{probe.TLSFiles{Cert: notPEM, Key: notPEM}, "--cert/--key: "},
	} {
		c, err := tc.files.Config(t.Context())
		if c != nil || err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, %v; want an error starting %q", tc.files, c, err, tc.want)
		}
	}
}

// A TLS file is read as every other file a flag names: a device or a
// FIFO is refused at once, naming the flag. os.ReadFile read /dev/zero
// until memory ran out and waited for ever on a FIFO with no writer.
func TestTLSFilesRefuseDevicesAndFIFOs(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "ca.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files probe.TLSFiles
		want  string
	}{
		{probe.TLSFiles{CACert: "/dev/zero"}, "--cacert /dev/zero: not a regular file (a character device)"},
		{probe.TLSFiles{CACert: fifo}, "--cacert " + fifo + ": not a regular file (a FIFO)"},
		{probe.TLSFiles{Cert: "/dev/zero", Key: "/dev/zero"}, "--cert /dev/zero: not a regular file"},
		{probe.TLSFiles{Cert: fifo, Key: fifo}, "--cert " + fifo + ": not a regular file (a FIFO)"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := tc.files.Config(t.Context())
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%+v: error %v, want one starting %q", tc.files, err, tc.want)
			}
		case <-time.After(10 * time.Second): // a bound on a hang, not a timing
			t.Fatalf("%+v: still reading after 10 s", tc.files)
		}
	}
}
