package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBuild(t *testing.T) {
	dst := t.TempDir()
	n, err := build(filepath.Join("testdata", "osv"), dst)
	if err != nil || n != 2 {
		t.Fatalf("build = %d, %v; want 2 entries", n, err)
	}
	read := func(name string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var db struct{ Modified time.Time }
	read("index/db.json", &db)
	if !db.Modified.Equal(time.Date(2099, 1, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("db modified = %v, want the newest entry's", db.Modified)
	}
	var modules []moduleVulns
	read("index/modules.json", &modules)
	got := map[string][]string{}
	for _, m := range modules {
		for _, v := range m.Vulns {
			got[m.Path] = append(got[m.Path], v.ID)
		}
	}
	if strings.Join(got["example.com/a"], ",") != "GO-2099-0001,GO-2099-0002" || strings.Join(got["stdlib"], ",") != "GO-2099-0002" || len(got) != 2 {
		t.Errorf("modules index = %v", got)
	}
	var e struct{ ID, Summary string }
	read("ID/GO-2099-0002.json", &e)
	if e.ID != "GO-2099-0002" || e.Summary != "Bugs in example.com/a and stdlib" {
		t.Errorf("entry = %+v: want the OSV file as it is", e)
	}
}

func TestJudge(t *testing.T) {
	call := []frame{{Module: "stdlib", Version: "v1.26.8", Package: "net/http", Function: "ReadRequest"}, {Package: "example.com/app", Function: "main"}}
	imported := []frame{{Module: "stdlib", Version: "v1.26.8", Package: "crypto/tls"}}
	report := func(findings map[string][]finding) report {
		r := report{GoVersion: "go1.26.8", Entries: map[string]osvEntry{}, Findings: findings}
		for id := range findings {
			r.Entries[id] = osvEntry{ID: id, Summary: "summary of " + id}
		}
		return r
	}
	var acceptedFindings = map[string][]finding{}
	for id := range accepted {
		acceptedFindings[id] = []finding{{OSV: id, Trace: call}}
	}

	t.Run("accepted findings pass, each printed with its reason", func(t *testing.T) {
		var out strings.Builder
		if err := judge(report(acceptedFindings), &out); err != nil {
			t.Fatalf("judge = %v\n%s", err, out.String())
		}
		for id, why := range accepted {
			if !strings.Contains(out.String(), "accepted "+id) || !strings.Contains(out.String(), why) {
				t.Errorf("output does not give %s with its reason:\n%s", id, out.String())
			}
		}
		if !strings.Contains(out.String(), "docs/reliability.md") {
			t.Errorf("output does not point at the reasoning:\n%s", out.String())
		}
	})
	t.Run("any other reachable finding fails", func(t *testing.T) {
		f := map[string][]finding{"GO-2026-6603": {{OSV: "GO-2026-6603", FixedVersion: "v1.26.9", Trace: call}}}
		for id, fs := range acceptedFindings {
			f[id] = fs
		}
		var out strings.Builder
		if err := judge(report(f), &out); !errors.Is(err, errFindings) {
			t.Fatalf("judge = %v, want errFindings", err)
		}
		if !strings.Contains(out.String(), "FOUND GO-2026-6603") || !strings.Contains(out.String(), "net/http.ReadRequest, reached from example.com/app.main") {
			t.Errorf("output does not name the finding and its call path:\n%s", out.String())
		}
	})
	t.Run("a package imported but not called does not fail", func(t *testing.T) {
		var out strings.Builder
		if err := judge(report(map[string][]finding{"GO-2026-6607": {{OSV: "GO-2026-6607", Trace: imported}}}), &out); err != nil {
			t.Fatalf("judge = %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "1 more in required modules or imported packages but not called") {
			t.Errorf("output = %s", out.String())
		}
	})
}
