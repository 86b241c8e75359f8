package probe

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/driplab/drip/internal/sanitize"
)

// TLSFiles are curl's TLS options (-k, --cacert, --cert, --key), for a
// server with a private CA or one that wants a client certificate.
type TLSFiles struct {
	Insecure bool   // do not verify the server's certificate
	CACert   string // PEM file of the CAs to verify the server against, instead of the system's
	Cert     string // PEM client certificate, with Key
	Key      string // PEM private key of Cert
}

// Config is the TLS setup the files ask for, for Options.TLS: nil when
// they ask for none, so the transport keeps its defaults. A file that
// cannot be read or holds no certificate is an error naming curl's flag.
func (f TLSFiles) Config() (*tls.Config, error) {
	if !f.Insecure && f.CACert == "" && f.Cert == "" && f.Key == "" {
		return nil, nil
	}
	c := &tls.Config{InsecureSkipVerify: f.Insecure} //nolint:gosec // the user asked, and drip says so loudly
	if f.CACert != "" {
		pem, err := os.ReadFile(f.CACert)
		if err != nil {
			return nil, fmt.Errorf("--cacert: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s: no PEM certificate in it", sanitize.Line(f.CACert))
		}
	}
	if (f.Cert == "") != (f.Key == "") {
		return nil, fmt.Errorf("--cert and --key go together: the certificate and its private key")
	}
	if f.Cert != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("--cert/--key: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
