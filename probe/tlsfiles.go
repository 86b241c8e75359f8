package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/userfile"
)

// The TLS files are read as every file a flag names, by userfile: a
// device or a FIFO is refused at once. A CA bundle as large as a
// system's is a few hundred KiB, a certificate chain or a key far less.
var (
	caFile   = userfile.Kind{What: "CA certificates", Limit: 8 << 20}
	certFile = userfile.Kind{What: "a client certificate", Limit: 1 << 20}
	keyFile  = userfile.Kind{What: "a private key", Limit: 1 << 20}
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
// cannot be read or holds no certificate is an error naming curl's flag;
// a done ctx stops the reading.
func (f TLSFiles) Config(ctx context.Context) (*tls.Config, error) {
	if !f.Insecure && f.CACert == "" && f.Cert == "" && f.Key == "" {
		return nil, nil
	}
	c := &tls.Config{InsecureSkipVerify: f.Insecure} //nolint:gosec // the user asked, and drip says so loudly
	if f.CACert != "" {
		pem, err := userfile.Read(ctx, f.CACert, caFile, nil)
		if err != nil {
			return nil, fmt.Errorf("--cacert %w", err)
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
		cert, err := userfile.Read(ctx, f.Cert, certFile, nil)
		if err != nil {
			return nil, fmt.Errorf("--cert %w", err)
		}
		key, err := userfile.Read(ctx, f.Key, keyFile, nil)
		if err != nil {
			return nil, fmt.Errorf("--key %w", err)
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("--cert/--key: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
