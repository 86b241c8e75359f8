// Package awsauth signs Bedrock requests with AWS SigV4, credentials from
// the AWS SDK's default chain.
package awsauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
)

// Options say how to sign Bedrock requests (--aws-region, --aws-profile,
// --aws-sigv4).
type Options struct {
	Region  string // "" takes it from the Bedrock host, else AWS_REGION
	Profile string // the shared-config profile, "" for the default chain
	SigV4   bool   // sign even when the host is not an AWS one (Bedrock behind a proxy)
}

// service is the SigV4 signing name of the Bedrock runtime.
const service = "bedrock"

// Signer returns a SigV4 signer for a Bedrock format (format names
// bedrock-…) sent to an AWS host, or anywhere with SigV4. It is nil
// otherwise, because a local Bedrock-compatible server needs no signature. Credentials
// come from the default chain (environment, shared config and Profile,
// SSO, IMDS), loaded once, at the first request.
func (o Options) Signer(rawURL, format string) (func(*http.Request, []byte) error, error) {
	if !strings.HasPrefix(format, "bedrock-") && !o.SigV4 {
		return nil, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("bad URL: %w", err)
	}
	host := strings.ToLower(u.Hostname())
	if !o.SigV4 && !strings.HasSuffix(host, ".amazonaws.com") {
		return nil, nil
	}
	region := o.Region
	if region == "" {
		region = regionFromHost(host)
	}
	var (
		once  sync.Once
		cfg   aws.Config
		cfErr error
	)
	s := v4.NewSigner()
	return func(req *http.Request, body []byte) error {
		once.Do(func() { cfg, cfErr = o.load(req.Context(), region) })
		if cfErr != nil {
			return fmt.Errorf("loading AWS configuration: %w", cfErr)
		}
		if cfg.Region == "" {
			return fmt.Errorf("no AWS region: give --aws-region or set AWS_REGION")
		}
		ctx, cancel := context.WithTimeout(req.Context(), 30*time.Second)
		defer cancel()
		creds, err := cfg.Credentials.Retrieve(ctx)
		if err != nil {
			return fmt.Errorf("AWS credentials: %w", err)
		}
		sum := sha256.Sum256(body)
		return s.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), service, cfg.Region, time.Now())
	}, nil
}

// load reads the AWS configuration for region, "" for the chain's.
func (o Options) load(ctx context.Context, region string) (aws.Config, error) {
	// The SDK's own warnings (IMDS fallbacks) must not reach the
	// terminal. A failure comes back as an error instead.
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if o.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(o.Profile))
	}
	return config.LoadDefaultConfig(ctx, opts...)
}

// regionFromHost reads REGION from bedrock-runtime.REGION.amazonaws.com.
func regionFromHost(host string) string {
	parts := strings.Split(host, ".")
	if len(parts) >= 4 && strings.HasPrefix(parts[0], "bedrock") {
		return parts[1]
	}
	return ""
}
