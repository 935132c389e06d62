package main

import (
	"bytes"
	"strings"
	"testing"
)

// Everything here stops before the database: bad usage and bad
// configuration exit 2 with a message, without connecting anywhere.
func TestRunUsage(t *testing.T) {
	unreachable := "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantOut    string // in stdout
		wantErrOut string // in stderr
	}{
		{name: "no command", args: nil, wantCode: 2, wantErrOut: "usage: marquee serve [--demo]"},
		{name: "unknown command", args: []string{"migrate"}, wantCode: 2, wantErrOut: `unknown command "migrate"`},
		{name: "help", args: []string{"help"}, wantCode: 0, wantOut: "usage: marquee serve"},
		{name: "--help", args: []string{"--help"}, wantCode: 0, wantOut: "PAYMENT_WEBHOOK_SECRET"},
		{name: "serve -h", args: []string{"serve", "-h"}, wantCode: 0, wantOut: "usage: marquee serve"},
		{name: "unknown flag", args: []string{"serve", "--demo-data"}, wantCode: 2, wantErrOut: "flag provided but not defined: -demo-data"},
		{name: "stray argument", args: []string{"serve", "--demo", "now"}, wantCode: 2, wantErrOut: `unexpected argument "now"`},
		{name: "no DATABASE_URL", args: []string{"serve"}, wantCode: 2, wantErrOut: "DATABASE_URL is required"},
		{name: "bad HOLD_TTL", args: []string{"serve", "--demo"},
			env:      map[string]string{"DATABASE_URL": unreachable, "HOLD_TTL": "abc"},
			wantCode: 2, wantErrOut: "invalid configuration:\n  HOLD_TTL=\"abc\""},
		{name: "two problems, one a line", args: []string{"serve"},
			env:      map[string]string{"DATABASE_URL": unreachable, "MAX_SEATS_PER_HOLD": "0", "PUBLIC_URL": "example.com"},
			wantCode: 2, wantErrOut: "\n  PUBLIC_URL=\"example.com\": want http:// or https:// followed by a host, e.g. http://localhost:8080\n  MAX_SEATS_PER_HOLD=\"0\": must be between 1 and 100\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, env(tt.env), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, &stdout, &stderr)
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", &stdout, tt.wantOut)
			}
			if !strings.Contains(stderr.String(), tt.wantErrOut) {
				t.Errorf("stderr %q does not contain %q", &stderr, tt.wantErrOut)
			}
		})
	}
}

// A database that does not answer is a failure to run (1), not bad usage.
func TestRunUnreachableDatabase(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"serve"}, env(map[string]string{
		"DATABASE_URL": "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2",
		"ADDR":         "127.0.0.1:0",
	}), &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1\nstderr: %s", code, &stderr)
	}
	for _, want := range []string{"PAYMENT_WEBHOOK_SECRET is not set", devWebhookSecret, "marquee stopped"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not mention %q:\n%s", want, &stderr)
		}
	}
}
