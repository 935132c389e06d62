package format

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAuditActionWords: every action code the admin use cases write into
// the audit log has words of its own, so the audit page never shows a
// code alone. The codes are read from the use cases' source: a new one
// without words fails here.
func TestAuditActionWords(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "admin", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the admin use cases' source: %v", err)
	}
	code := regexp.MustCompile(`"([a-z_]+\.[a-z_]+)"`)
	// Written in an entry, or returned as the action of one (shows.go).
	call := regexp.MustCompile(`auditEntry\(|Action:|action\s*:?=|return "[a-z_]+\.[a-z_]+", `)
	found := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if !call.MatchString(line) {
				continue
			}
			for _, m := range code.FindAllStringSubmatch(line, -1) {
				found[m[1]] = true
			}
		}
	}
	t.Logf("%d action codes in the use cases", len(found))
	if len(found) < 15 {
		t.Fatalf("found %d action codes in the use cases, want every one of them: %v", len(found), found)
	}
	for c := range found {
		if _, ok := auditActions[c]; !ok {
			t.Errorf("audit action %q has no words (auditActions)", c)
		}
	}
	for c, want := range map[string]string{
		"theatre_admin.grant": "Granted theatre admin", "show.cancel": "Cancelled show",
		"show.new_thing": "Show: new thing", "odd": "odd",
	} {
		if got := AuditAction(c); got != want {
			t.Errorf("AuditAction(%q) = %q, want %q", c, got, want)
		}
	}
}
