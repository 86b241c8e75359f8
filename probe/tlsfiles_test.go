package probe_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
)

// No file asked for is no TLS setup (the transport's defaults); -k alone
// skips verification; a file that cannot serve is an error naming curl's
// flag for it. (cmd/drip's TLS tests drive a real TLS server.)
func TestTLSFilesConfig(t *testing.T) {
	if c, err := (probe.TLSFiles{}).Config(); c != nil || err != nil {
		t.Errorf("no files: %v, %v; want nil, nil", c, err)
	}
	if c, err := (probe.TLSFiles{Insecure: true}).Config(); err != nil || c == nil || !c.InsecureSkipVerify || c.RootCAs != nil {
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
		{probe.TLSFiles{CACert: filepath.Join(dir, "none.pem")}, "--cacert: open"},
		{probe.TLSFiles{CACert: notPEM}, "--cacert " + notPEM + ": no PEM certificate in it"},
		{probe.TLSFiles{Key: notPEM}, "--cert and --key go together"},
		{probe.TLSFiles{Cert: notPEM, Key: notPEM}, "--cert/--key: "},
	} {
		c, err := tc.files.Config()
		if c != nil || err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, %v; want an error starting %q", tc.files, c, err, tc.want)
		}
	}
}
