package main

import (
	"context"
	"net/url"
	"strings"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
)

// target is one system under test of watch or run: a URL with a model.
type target struct {
	name string // how the screen and the reports call it
	t    probe.Target
	o    probe.Options
}

// targets pairs the URLs with the -m values: none or one -m applies to
// every URL, one per URL pairs them in order, and several with one URL
// make one target per model.
func (f *requestFlags) targets(ctx context.Context, urls []string) ([]target, error) {
	models := f.models
	switch {
	case len(models) <= 1:
		m := ""
		if len(models) == 1 {
			m = models[0]
		}
		models = make([]string, len(urls))
		for i := range models {
			models[i] = m
		}
	case len(urls) == 1:
		urls = repeat(urls[0], len(models))
	case len(models) != len(urls):
		return nil, usageErr("-m given %s for %s: give it once (every URL), once per URL, or several times with one URL", times(len(models)), stats.Count(len(urls), "URL"))
	}
	out := make([]target, len(urls))
	for i := range urls {
		t, o, err := f.buildFor(ctx, urls[i], models[i])
		if err != nil {
			return nil, err
		}
		out[i] = target{t: t, o: o}
	}
	names := targetNames(urls, models)
	for i := range out {
		out[i].name = names[i]
	}
	return out, nil
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// targetNames name targets by what tells them apart: the host (and path
// when hosts repeat) and the model when models differ.
func targetNames(urls, models []string) []string {
	hosts := make([]string, len(urls))
	for i, raw := range urls {
		hosts[i] = probe.RedactURL(raw)
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			hosts[i] = u.Host
		}
	}
	sameHost := allEqual(hosts)
	sameModel := allEqual(models)
	// Hosts that repeat tell targets apart only with their paths, unless
	// one host serves models that differ (the model then names them).
	if !allDistinct(hosts) && (!sameHost || sameModel) {
		for i, raw := range urls {
			hosts[i] = probe.RedactURL(raw)
		}
	}
	names := make([]string, len(urls))
	for i := range urls {
		var parts []string
		if !sameHost || sameModel {
			parts = append(parts, hosts[i])
		}
		if !sameModel && models[i] != "" {
			parts = append(parts, models[i])
		}
		names[i] = strings.Join(parts, " ")
	}
	return names
}

func allEqual(s []string) bool {
	for _, v := range s {
		if v != s[0] {
			return false
		}
	}
	return true
}

func allDistinct(s []string) bool {
	seen := map[string]bool{}
	for _, v := range s {
		if seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
