//go:build tools

// Package victoriametrics pins the VictoriaMetrics single-node server the
// integration tests scrape and push to. It is its own module so its
// dependencies stay out of both drip's go.mod and integration/'s; .ci/run
// builds it once into $HOME/.cache/drip:
//
//	go build -o ~/.cache/drip/victoria-metrics-v1.151.0 github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics
//
// v1.151.0 is the newest release whose go.mod accepts Go 1.26 (v1.152.0
// and later want 1.27).
package victoriametrics

import _ "github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics"
