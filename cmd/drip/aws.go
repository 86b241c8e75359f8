package main

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

	"github.com/driplab/drip/probe"
)

// awsFlags say how to sign Bedrock requests.
type awsFlags struct {
	region  string
	profile string
	sigv4   bool
}

// bedrockService is the SigV4 signing name of the Bedrock runtime.
const bedrockService = "bedrock"

// signer returns a SigV4 signer for Bedrock formats sent to an AWS host, or
// anywhere with --aws-sigv4; nil otherwise (a local Bedrock-compatible
// server needs no signature). Credentials come from the default chain
// (environment, shared config and --aws-profile, SSO, IMDS), loaded once,
// at the first request.
func (a *awsFlags) signer(t probe.Target) (func(*http.Request, []byte) error, error) {
	if !strings.HasPrefix(t.Format.Name, "bedrock-") && !a.sigv4 {
		return nil, nil
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, usageErr("bad URL: %v", err)
	}
	host := strings.ToLower(u.Hostname())
	if !a.sigv4 && !strings.HasSuffix(host, ".amazonaws.com") {
		return nil, nil
	}
	region := a.region
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
		once.Do(func() {
			// The SDK's own warnings (IMDS fallbacks) must not reach the
			// terminal; a failure comes back as an error instead.
			opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
			if region != "" {
				opts = append(opts, config.WithRegion(region))
			}
			if a.profile != "" {
				opts = append(opts, config.WithSharedConfigProfile(a.profile))
			}
			cfg, cfErr = config.LoadDefaultConfig(req.Context(), opts...)
		})
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
		return s.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), bedrockService, cfg.Region, time.Now())
	}, nil
}

// regionFromHost reads REGION from bedrock-runtime.REGION.amazonaws.com.
func regionFromHost(host string) string {
	parts := strings.Split(host, ".")
	if len(parts) >= 4 && strings.HasPrefix(parts[0], "bedrock") {
		return parts[1]
	}
	return ""
}
