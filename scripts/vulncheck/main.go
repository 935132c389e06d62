// Command vulncheck is the vulnerability gate of `make test`: govulncheck
// against Go's vulnerability database, built offline.
//
// The online database cannot be reached from where Marquee is built, so
// the database is made from the OSV files that golang.org/x/vulndb carries
// (data/osv), fetched from the module proxy like any module, laid out as
// govulncheck's file:// source wants it (index/db.json, index/modules.json,
// ID/<id>.json) and kept for the next run. govulncheck's JSON output is then
// read finding by finding: a vulnerability the code reaches (a call path
// to an affected symbol) fails the gate, unless it is one of the accepted
// ones below, which are printed with their reason.
//
//	go run ./scripts/vulncheck -vulndb golang.org/x/vulndb@VERSION [packages]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// accepted are the findings the gate lets through, each with the reason;
// docs/reliability.md has the reasoning in full. Anything else reachable
// fails.
var accepted = map[string]string{
	"GO-2026-6872": "echo v4 believes a spoofed X-Forwarded-For in its default IP extraction: " +
		"Marquee sets its own IPExtractor and trusts the header only from the proxies in TRUSTED_PROXIES",
	"GO-2026-6875": "echo's proxy middleware forwards a client's X-Real-IP upstream: " +
		"Marquee does not use echo's proxy middleware",
}

func main() {
	vulndb := flag.String("vulndb", "", "the vulnerability database's module, golang.org/x/vulndb@VERSION")
	cache := flag.String("cache", ".data/vulndb", "where the database is built and kept, one folder per version")
	modfile := flag.String("modfile", "vuln.mod", "the module file that pins govulncheck")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: vulncheck -vulndb golang.org/x/vulndb@VERSION [-cache dir] [-modfile vuln.mod] [packages]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *vulndb == "" {
		flag.Usage()
		os.Exit(2)
	}
	pkgs := flag.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	if err := run(*vulndb, *cache, *modfile, pkgs, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "vulncheck:", err)
		os.Exit(1)
	}
}

// errFindings is a gate that found something it does not accept.
var errFindings = errors.New("reachable vulnerabilities found (see above)")

func run(vulndb, cache, modfile string, pkgs []string, out io.Writer) error {
	db, err := database(vulndb, cache)
	if err != nil {
		return err
	}
	report, err := scan(db, modfile, pkgs)
	if err != nil {
		return err
	}
	return judge(report, out)
}

// database returns the folder of the v1 database made from vulndb's OSV
// files, building it the first time.
func database(vulndb, cache string) (string, error) {
	_, version, ok := strings.Cut(vulndb, "@")
	if !ok || version == "" {
		return "", fmt.Errorf("-vulndb %q: want module@version", vulndb)
	}
	dir, err := filepath.Abs(filepath.Join(cache, version))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "index", "modules.json")); err == nil {
		return dir, nil
	}
	src, err := download(vulndb)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Built aside, then renamed: a run cut short leaves no half database.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), version+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	n, err := build(filepath.Join(src, "data", "osv"), tmp)
	if err != nil {
		return "", fmt.Errorf("build the database from %s: %w", vulndb, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	fmt.Printf("vulncheck: built the database of %s (%d entries) in %s\n", vulndb, n, dir)
	return dir, nil
}

// download fetches module@version from the module proxy into the module
// cache and returns its folder.
func download(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(b, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", module, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w: %s", module, err, stderr.Bytes())
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no folder in %q", module, b)
	}
	return info.Dir, nil
}

// entry is what the index needs of an OSV entry.
type entry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
	} `json:"affected"`
}

// moduleVulns is an entry of index/modules.json. Each vulnerability is
// listed without its fixed version, which is only a shortcut for skipping
// it: govulncheck then reads every entry of a module it uses and decides
// by the entry's own ranges.
type moduleVulns struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
}

type vulnIndex struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
}

// build writes the v1 database of the OSV files in src into dst: every
// entry as ID/<id>.json, and the index. It returns how many entries.
func build(src, dst string) (int, error) {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		return 0, fmt.Errorf("no OSV files in %s", src)
	}
	for _, d := range []string{"ID", "index"} {
		if err := os.MkdirAll(filepath.Join(dst, d), 0o755); err != nil {
			return 0, err
		}
	}
	var (
		modified time.Time
		modules  = map[string]*moduleVulns{}
		vulns    []vulnIndex
	)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		var e entry
		if err := json.Unmarshal(b, &e); err != nil {
			return 0, fmt.Errorf("%s: %w", f, err)
		}
		if e.ID == "" || filepath.Base(f) != e.ID+".json" {
			return 0, fmt.Errorf("%s: the file is not named for its id %q", f, e.ID)
		}
		if err := os.WriteFile(filepath.Join(dst, "ID", e.ID+".json"), b, 0o644); err != nil {
			return 0, err
		}
		if e.Modified.After(modified) {
			modified = e.Modified
		}
		vulns = append(vulns, vulnIndex{ID: e.ID, Modified: e.Modified, Aliases: e.Aliases})
		for _, a := range e.Affected {
			m := modules[a.Package.Name]
			if m == nil {
				m = &moduleVulns{Path: a.Package.Name}
				modules[a.Package.Name] = m
			}
			if !slices.ContainsFunc(m.Vulns, func(v moduleVuln) bool { return v.ID == e.ID }) {
				m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified})
			}
		}
	}
	list := make([]*moduleVulns, 0, len(modules))
	for _, m := range modules {
		sort.Slice(m.Vulns, func(i, j int) bool { return m.Vulns[i].ID < m.Vulns[j].ID })
		list = append(list, m)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	sort.Slice(vulns, func(i, j int) bool { return vulns[i].ID < vulns[j].ID })
	for name, v := range map[string]any{
		"db.json": struct {
			Modified time.Time `json:"modified"`
		}{modified},
		"modules.json": list,
		"vulns.json":   vulns,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dst, "index", name), b, 0o644); err != nil {
			return 0, err
		}
	}
	return len(files), nil
}

// report is what govulncheck said.
type report struct {
	GoVersion string
	Entries   map[string]osvEntry // by id
	Findings  map[string][]finding
}

type osvEntry struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

type finding struct {
	OSV          string  `json:"osv"`
	FixedVersion string  `json:"fixed_version"`
	Trace        []frame `json:"trace"`
}

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
}

// reachable reports whether the finding is a call path to an affected
// symbol, not only an import of its package or a requirement of its module.
func (f finding) reachable() bool { return len(f.Trace) > 0 && f.Trace[0].Function != "" }

// scan runs govulncheck on pkgs against the database in db.
func scan(db, modfile string, pkgs []string) (report, error) {
	dbURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(db)}).String()
	args := append([]string{"tool", "-modfile=" + modfile, "govulncheck", "-db", dbURL, "-format", "json"}, pkgs...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return report{}, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	r := report{Entries: map[string]osvEntry{}, Findings: map[string][]finding{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var msg struct {
			Config *struct {
				GoVersion string `json:"go_version"`
			} `json:"config"`
			OSV     *osvEntry `json:"osv"`
			Finding *finding  `json:"finding"`
		}
		if err := dec.Decode(&msg); err != nil {
			return report{}, fmt.Errorf("read govulncheck's output: %w", err)
		}
		switch {
		case msg.Config != nil:
			r.GoVersion = msg.Config.GoVersion
		case msg.OSV != nil:
			r.Entries[msg.OSV.ID] = *msg.OSV
		case msg.Finding != nil:
			r.Findings[msg.Finding.OSV] = append(r.Findings[msg.Finding.OSV], *msg.Finding)
		}
	}
	return r, nil
}

// judge prints the report and fails on what the code reaches that is not
// accepted.
func judge(r report, out io.Writer) error {
	var reached, known, unreached []string
	for id, fs := range r.Findings {
		switch {
		case !slices.ContainsFunc(fs, finding.reachable):
			unreached = append(unreached, id)
		case accepted[id] != "":
			known = append(known, id)
		default:
			reached = append(reached, id)
		}
	}
	slices.Sort(reached)
	slices.Sort(known)
	slices.Sort(unreached)

	fmt.Fprintf(out, "vulncheck: %s; %d vulnerabilities reached, %d of them accepted; %d more in required modules or imported packages but not called\n",
		r.GoVersion, len(reached)+len(known), len(known), len(unreached))
	for _, id := range known {
		fmt.Fprintf(out, "  accepted %s (%s): %s\n", id, r.Entries[id].Summary, accepted[id])
	}
	if len(known) > 0 {
		fmt.Fprintln(out, "  (why each is accepted: docs/reliability.md)")
	}
	for id := range accepted {
		if _, ok := r.Findings[id]; !ok {
			fmt.Fprintf(out, "  %s is accepted but no longer found: take it off the list in scripts/vulncheck\n", id)
		}
	}
	for _, id := range reached {
		fmt.Fprintf(out, "  FOUND %s: %s\n", id, r.Entries[id].Summary)
		var paths []string
		for _, f := range r.Findings[id] {
			if !f.reachable() {
				continue
			}
			top := f.Trace[0]
			fixed := "no fixed version"
			if f.FixedVersion != "" {
				fixed = "fixed in " + f.FixedVersion
			}
			paths = append(paths, fmt.Sprintf("%s@%s (%s): %s, reached from %s", top.Module, top.Version, fixed,
				symbol(top), symbol(f.Trace[len(f.Trace)-1])))
		}
		slices.Sort(paths)
		for i, p := range paths {
			if i == maxPaths {
				fmt.Fprintf(out, "    and %d more\n", len(paths)-maxPaths)
				break
			}
			fmt.Fprintf(out, "    %s\n", p)
		}
	}
	if len(reached) > 0 {
		return errFindings
	}
	return nil
}

// maxPaths is how many call paths are printed of one vulnerability.
const maxPaths = 3

// symbol names a frame's function as pkg.Recv.Func.
func symbol(f frame) string {
	s := f.Package
	if f.Receiver != "" {
		s += "." + strings.TrimPrefix(f.Receiver, "*")
	}
	if f.Function != "" {
		s += "." + f.Function
	}
	return s
}
