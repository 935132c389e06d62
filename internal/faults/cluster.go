// Package faults breaks what Marquee depends on, for the tests that prove it
// survives: a private PostgreSQL cluster a test may stop (fast or
// immediate) and start again on the same port, and a TCP proxy to put
// between the app and its database that adds latency, goes silent, cuts
// every connection or refuses new ones. The fault tests themselves are in
// cmd/marquee (faults_test.go), where the app runs as `marquee serve` in a
// child process.
package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a private PostgreSQL server in a temporary directory,
// listening on 127.0.0.1 only, with trust authentication for user postgres.
// It is the test's alone, so the test may stop it.
type Cluster struct {
	Port int

	bin  string // directory of initdb, pg_ctl and postgres
	dir  string // removed at the end of the test
	data string
	log  string
	cred *syscall.Credential // the postgres user's, when we are root
}

// NewCluster creates and starts a cluster for the test, stopped and removed
// when it ends. It skips the test when PostgreSQL's server binaries are not
// installed.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin := serverBinaries()
	if bin == "" {
		t.Skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed: " +
			"install postgresql (Debian: apt-get install postgresql) to run the fault tests")
	}
	c, err := createCluster(bin)
	if err != nil {
		t.Fatalf("create a private PostgreSQL cluster: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("PostgreSQL's log (%s):\n%s", c.log, c.Log())
		}
		_ = c.ctl("stop", "-m", "immediate")
		os.RemoveAll(c.dir)
	})
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// serverBinaries is the directory of the newest Debian-packaged server
// binaries, else of pg_ctl on PATH, else "".
func serverBinaries() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return majorVersion(b) - majorVersion(a) })
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "pg_ctl")) {
			return d
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil && isExecutable(filepath.Join(filepath.Dir(p), "initdb")) {
		return filepath.Dir(p)
	}
	return ""
}

func majorVersion(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// createCluster runs initdb in a new temporary directory. PostgreSQL
// refuses to run as root, so as root the cluster belongs to the postgres
// user, whose directory it is.
func createCluster(bin string) (*Cluster, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "marquee-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Port: port, bin: bin, dir: dir, data: filepath.Join(dir, "data"), log: filepath.Join(dir, "postgres.log")}
	if err := c.create(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) create() error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root, PostgreSQL must run as user postgres: %w", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		// The postgres user must reach the directory; it owns what is in it.
		if err := os.Chmod(c.dir, 0o755); err != nil {
			return err
		}
	}
	if err := os.Mkdir(c.data, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(c.log, nil, 0o600); err != nil {
		return err
	}
	if c.cred != nil {
		for _, p := range []string{c.data, c.log} {
			if err := os.Chown(p, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
				return err
			}
		}
	}
	if out, err := c.run("initdb", "-D", c.data, "-U", "postgres", "--auth=trust",
		"--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// fsync off: a test does not outlive a power cut, and a process that
	// dies (immediate shutdown) loses nothing the kernel was given. Commits
	// stay synchronous, so an acknowledged commit is in the WAL.
	conf := fmt.Sprintf(`
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = ''
max_connections = 200
fsync = off
log_min_messages = warning
log_connections = off
`, c.Port)
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// freePort is a TCP port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// run runs one of the server binaries as the cluster's owner.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
		cmd.Env = append(os.Environ(), "HOME="+c.dir)
	}
	return cmd.CombinedOutput()
}

func (c *Cluster) ctl(args ...string) error {
	args = append([]string{"-D", c.data, "-w", "-t", "60"}, args...)
	if out, err := c.run("pg_ctl", args...); err != nil {
		return fmt.Errorf("pg_ctl %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() error {
	if err := c.ctl("-l", c.log, "start"); err != nil {
		return err
	}
	// pg_ctl -w returns once the postmaster is up; a connection proves it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			return conn.Close(ctx)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("the cluster does not accept connections: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop shuts the server down in mode "fast" (sessions are ended, the
// server checkpoints) or "immediate" (every process quits at once, as in a
// crash: the next start recovers from the WAL).
func (c *Cluster) Stop(mode string) error {
	if mode != "fast" && mode != "immediate" {
		return errors.New(`faults: stop mode is "fast" or "immediate"`)
	}
	return c.ctl("-m", mode, "stop")
}

// URL is the address of database db on the cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

// CreateDatabase creates database name on the cluster.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return err
}

// Log is what the server has logged.
func (c *Cluster) Log() string {
	b, err := os.ReadFile(c.log)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
