package awsauth

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
)

func TestSignerSignsBedrockOnAWSHostsOrWhenAsked(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	converse := adapters.Lookup("bedrock-converse")
	for _, tc := range []struct {
		name   string
		opts   Options
		url    string
		format *adapters.Format
		region string // "" = not signed
	}{
		{"aws host", Options{}, "https://bedrock-runtime.eu-west-3.amazonaws.com/model/m/converse-stream", converse, "eu-west-3"},
		{"region flag wins", Options{Region: "us-west-2"}, "https://bedrock-runtime.eu-west-3.amazonaws.com/model/m/converse-stream", converse, "us-west-2"},
		{"local server", Options{}, "http://127.0.0.1:8089/model/m/converse-stream", converse, ""},
		{"forced", Options{SigV4: true, Region: "us-east-1"}, "http://127.0.0.1:8089/model/m/converse-stream", converse, "us-east-1"},
		{"not bedrock", Options{}, "https://api.openai.com/v1/chat/completions", adapters.Lookup("openai-chat"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sign, err := tc.opts.Signer(tc.url, tc.format.Name)
			if err != nil {
				t.Fatal(err)
			}
			if tc.region == "" {
				if sign != nil {
					t.Fatal("signed, want unsigned")
				}
				return
			}
			body := []byte(`{"messages":[]}`)
			req, _ := http.NewRequest(http.MethodPost, tc.url, bytes.NewReader(body))
			if err := sign(req, body); err != nil {
				t.Fatal(err)
			}
			auth := req.Header.Get("Authorization")
			want := "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"
			if !strings.HasPrefix(auth, want) || !strings.Contains(auth, "/"+tc.region+"/bedrock/aws4_request") {
				t.Errorf("Authorization %q, want SigV4 for %s/bedrock", auth, tc.region)
			}
			if req.Header.Get("X-Amz-Date") == "" {
				t.Error("no X-Amz-Date")
			}
		})
	}
}
