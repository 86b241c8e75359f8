package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/probe"
)

// tlsFlags are curl's TLS flags, for a server with a private CA or one
// that wants a client certificate.
type tlsFlags struct {
	insecure bool
	caCert   string
	cert     string
	key      string
}

func (f *tlsFlags) register(fs *pflag.FlagSet) {
	fs.BoolVarP(&f.insecure, "insecure", "k", false, "do not verify the server's TLS certificate (said on stderr and in the summary); prefer --cacert")
	fs.StringVar(&f.caCert, "cacert", "", "verify the server's certificate against the CA certificates in this PEM file (instead of the system's)")
	fs.StringVar(&f.cert, "cert", "", "client certificate (PEM) for servers that ask for one; with --key")
	fs.StringVar(&f.key, "key", "", "the private key (PEM) of --cert")
}

// config is the TLS setup the flags ask for: nil when they ask for none,
// so the transport keeps its defaults. A file that cannot be read or
// holds no certificate is a usage error naming its flag.
func (f *tlsFlags) config() (*tls.Config, error) {
	if !f.insecure && f.caCert == "" && f.cert == "" && f.key == "" {
		return nil, nil
	}
	c := &tls.Config{InsecureSkipVerify: f.insecure} //nolint:gosec // the user asked, and drip says so loudly
	if f.caCert != "" {
		pem, err := os.ReadFile(f.caCert)
		if err != nil {
			return nil, usageErr("--cacert: %v", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, usageErr("--cacert %s: no PEM certificate in it", sanitize.Line(f.caCert))
		}
	}
	if (f.cert == "") != (f.key == "") {
		return nil, usageErr("--cert and --key go together: the certificate and its private key")
	}
	if f.cert != "" {
		pair, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, usageErr("--cert/--key: %v", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// insecureWarning is what -k prints on stderr before anything is sent.
const insecureWarning = "drip: WARNING: -k/--insecure: the server's TLS certificate is NOT verified; anyone on the path can read and change this traffic"

// warnInsecure prints insecureWarning when o skips verification.
func warnInsecure(w io.Writer, o probe.Options) {
	if o.TLS != nil && o.TLS.InsecureSkipVerify {
		fmt.Fprintln(w, insecureWarning)
	}
}

// screenWarning is what the screens say first in their header while -k is
// on, so the warning printed before the screen opened is not lost behind it.
func screenWarning(o probe.Options) string {
	if o.TLS != nil && o.TLS.InsecureSkipVerify {
		return "TLS NOT VERIFIED (-k)"
	}
	return ""
}
