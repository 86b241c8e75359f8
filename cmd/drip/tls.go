package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/probe"
)

// registerTLS adds curl's TLS flags, for a server with a private CA or
// one that wants a client certificate.
func registerTLS(fs *pflag.FlagSet, f *probe.TLSFiles) {
	fs.BoolVarP(&f.Insecure, "insecure", "k", false, "do not verify the server's TLS certificate (said on stderr and in the summary); prefer --cacert")
	fs.StringVar(&f.CACert, "cacert", "", "verify the server's certificate against the CA certificates in this PEM file (instead of the system's)")
	fs.StringVar(&f.Cert, "cert", "", "client certificate (PEM) for servers that ask for one; with --key")
	fs.StringVar(&f.Key, "key", "", "the private key (PEM) of --cert")
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
