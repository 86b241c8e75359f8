package main

import (
	"runtime"
	"strings"
	"testing"
)

func TestVersionNamesVersionCommitAndGo(t *testing.T) {
	code, byCmd, _ := drip(t, "version")
	_, byFlag, _ := drip(t, "--version")
	if code != exitOK || byCmd != byFlag {
		t.Fatalf("drip version exit %d %q, drip --version %q: want the same line", code, byCmd, byFlag)
	}
	if !strings.HasPrefix(byCmd, "drip ") || !strings.Contains(byCmd, "commit ") || !strings.Contains(byCmd, runtime.Version()) {
		t.Errorf("version line %q: want drip VERSION (commit …, %s, …)", byCmd, runtime.Version())
	}
}

func TestVersionLinkerValuesWin(t *testing.T) {
	saved, savedCommit := linkVersion, linkCommit
	t.Cleanup(func() { linkVersion, linkCommit = saved, savedCommit })
	linkVersion, linkCommit = "v1.4.0", "0123456789abcdef0123"
	got := readBuildID().String()
	want := "drip v1.4.0 (commit 0123456789ab, " + runtime.Version()
	if !strings.HasPrefix(got, want) {
		t.Errorf("release build says %q, want it to start %q", got, want)
	}
}
