package peerbench

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5" // the pgx5:// driver
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
)

// The peer is overbookr's server at one commit: its build is checked
// against it, and its schema (the migrations read from its source) must be
// that commit's, byte for byte.
const (
	PeerModule  = "github.com/abhinandanwadwa/overbookr"
	PeerCommand = PeerModule + "/cmd/server"
	PeerCommit  = "a8fbb909e3013242cfed3f702b8eb5aac4399c4d"
	// PeerVersion is PeerCommit's module version (no release is tagged).
	PeerVersion = "v0.0.0-20250914144249-a8fbb909e301"
)

// peerMigrations are the SHA-256 sums of overbookr's migrations at
// PeerCommit, by file name.
var peerMigrations = map[string]string{
	"0001_init.up.sql":                  "4181d81abcc0203fe388db7ca9ebebf98701ff381c440cdf830ee72275170758",
	"0002_add_updated_at_column.up.sql": "1ba0072865be15552d44175ec476e9314ae571289adf529d87638d5a178319d3",
}

// CheckPeer checks that bin is a build of overbookr's server and that
// migrations holds its migrations at PeerCommit, before any database is
// made for them. It returns what the build records of its version, for the
// report: a build made outside version control records none.
func CheckPeer(bin, migrations string) (version string, err error) {
	if bin == "" || migrations == "" {
		return "", errors.New("-peer needs -peer-bin (a build of " + PeerCommand + ") and -peer-migrations (the migrations folder of its source)")
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return "", fmt.Errorf("-peer-bin %s: not a Go program whose build can be read: %w", bin, err)
	}
	if info.Path != PeerCommand {
		return "", fmt.Errorf("-peer-bin %s is a build of %s, not of overbookr's server (%s)", bin, info.Path, PeerCommand)
	}
	version = "not recorded in the build"
	var revision string
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	switch v := info.Main.Version; {
	case v == PeerVersion || revision == PeerCommit:
		version = PeerVersion
	case revision != "":
		return "", fmt.Errorf("-peer-bin %s was built at commit %s; the benchmark is pinned to %s", bin, revision, PeerCommit)
	case v != "" && v != "(devel)":
		return "", fmt.Errorf("-peer-bin %s was built at %s; the benchmark is pinned to %s", bin, v, PeerVersion)
	}
	if err := checkMigrations(os.DirFS(migrations)); err != nil {
		return "", fmt.Errorf("-peer-migrations %s: %w", migrations, err)
	}
	return version, nil
}

// checkMigrations checks that fsys holds overbookr's migrations at
// PeerCommit and no other.
func checkMigrations(fsys fs.FS) error {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return err
	}
	var want []string
	for name := range peerMigrations {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		return fmt.Errorf("holds %v, want overbookr's migrations at %.12s: %v", names, PeerCommit, want)
	}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != peerMigrations[name] {
			return fmt.Errorf("%s is not overbookr's at %.12s", name, PeerCommit)
		}
	}
	return nil
}

// migratePeer applies overbookr's migrations to the database at dbURL
// with golang-migrate, as overbookr's setup does (`migrate -path
// migrations up`).
func migratePeer(dbURL, dir string) error {
	src, err := iofs.New(os.DirFS(dir), ".")
	if err != nil {
		return fmt.Errorf("overbookr's migrations: %w", err)
	}
	_, rest, ok := strings.Cut(dbURL, "://")
	if !ok {
		return errors.New("overbookr's database: not a URL")
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, "pgx5://"+rest)
	if err != nil {
		return fmt.Errorf("overbookr's migrations: %w", err)
	}
	defer m.Close()
	if err := m.Up(); err != nil {
		return fmt.Errorf("apply overbookr's migrations: %w", err)
	}
	return nil
}

// peerServer is overbookr's server run as a child process.
type peerServer struct {
	Base string // http://127.0.0.1:<port>

	cmd    *exec.Cmd
	dir    string // its working directory, empty: no .env to find there
	output *tail
	exited chan struct{}
	err    error // how it exited, once exited is closed
}

// startPeer runs overbookr's server bin on the database at dbURL and waits
// until it answers. It gets only the settings it reads (POSTGRESQL_URI,
// PORT, JWT_SECRET; GIN_MODE=release, Gin's mode for production, without
// its debug output) and none of this process's environment, so it has no mail
// account to send a booking's confirmation with; the benchmark books
// nothing. Its code listens on every interface of the port it is given;
// the clients reach it on loopback.
func startPeer(ctx context.Context, bin, dbURL string) (*peerServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "overbookr-")
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	cmd := exec.Command(bin)
	cmd.Dir = dir
	// Gone with this process, however it ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	cmd.Env = []string{
		"POSTGRESQL_URI=" + dbURL,
		"PORT=" + strconv.Itoa(port),
		"JWT_SECRET=" + hex.EncodeToString(secret),
		"GIN_MODE=release",
	}
	p := &peerServer{Base: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, dir: dir, output: &tail{max: 4 << 10}, exited: make(chan struct{})}
	// It logs a line per request: kept only as the last few lines, for
	// when it fails.
	cmd.Stdout, cmd.Stderr = p.output, p.output
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start overbookr: %w", err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	if err := p.waitUp(ctx, 30*time.Second); err != nil {
		return nil, errors.Join(err, p.Stop())
	}
	return p, nil
}

// waitUp polls GET /healthz until it answers {"status":"ok"}.
func (p *peerServer) waitUp(ctx context.Context, within time.Duration) error {
	hc := &http.Client{Timeout: time.Second}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(within)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Base+"/healthz", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			var health struct{ Status string }
			err := json.NewDecoder(resp.Body).Decode(&health)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK && health.Status == "ok" {
				return nil
			}
		}
		select {
		case <-p.exited:
			why := p.err
			if why == nil {
				why = errors.New("exit status 0")
			}
			return fmt.Errorf("overbookr exited before it answered (%w); it said:\n%s", why, p.output)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("overbookr did not answer /healthz within %s; it said:\n%s", within, p.output)
		}
	}
}

// PID is the server's process id.
func (p *peerServer) PID() int { return p.cmd.Process.Pid }

// Stop asks the server to shut down (SIGTERM, on which it drains its
// requests), kills it if it has not exited within 20 s, and removes its
// working directory.
func (p *peerServer) Stop() error {
	defer os.RemoveAll(p.dir)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop overbookr: %w", err)
	}
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("kill overbookr: %w", err)
		}
		<-p.exited
		return errors.New("overbookr did not exit within 20 s of SIGTERM")
	}
	if p.err != nil {
		return fmt.Errorf("overbookr exited: %w; it said:\n%s", p.err, p.output)
	}
	return nil
}

// freePort is a loopback port free a moment ago: the peer's server takes a
// port number, not a listener.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// The peer's API, as its handlers answer (POST /users/register,
// /users/login, /events/, /events/{id}/seats, /holds/). Its routes end in
// a slash: without it Gin answers a redirect.

// peerSignUp registers a user (role "user" or "admin") on conn, signs
// them in (POST /users/login) and makes conn send their token from then on.
// It returns the token, which another connection may send as well.
func peerSignUp(conn *apiclient.Conn, email, password, role string) (string, error) {
	a, err := conn.Do(http.MethodPost, "/users/register", "", map[string]string{
		"name": email, "email": email, "password": password, "role": role,
	})
	if err == nil && a.StatusCode != http.StatusCreated {
		err = fmt.Errorf("%d %s", a.StatusCode, a.Body)
	}
	if err != nil {
		return "", fmt.Errorf("overbookr: register %s: %w", email, err)
	}
	a, err = conn.Do(http.MethodPost, "/users/login", "", map[string]string{"email": email, "password": password})
	var answer struct {
		Token string `json:"token"`
	}
	if err == nil && (a.StatusCode != http.StatusOK || json.Unmarshal(a.Body, &answer) != nil || answer.Token == "") {
		err = fmt.Errorf("%d %s", a.StatusCode, a.Body)
	}
	if err != nil {
		return "", fmt.Errorf("overbookr: log in %s: %w", email, err)
	}
	conn.SetBearer(answer.Token)
	return answer.Token, nil
}

// peerEvent creates an event with seats (as an admin) and returns its id.
func peerEvent(conn *apiclient.Conn, name string, startsAt time.Time, seats []string) (string, error) {
	a, err := conn.Do(http.MethodPost, "/events/", "", map[string]any{
		"name": name, "venue": "Bench Cinema", "start_time": startsAt, "capacity": len(seats),
	})
	var event struct {
		ID string `json:"id"`
	}
	if err == nil && (a.StatusCode != http.StatusCreated || json.Unmarshal(a.Body, &event) != nil || event.ID == "") {
		err = fmt.Errorf("%d %s", a.StatusCode, a.Body)
	}
	if err != nil {
		return "", fmt.Errorf("overbookr: create event %s: %w", name, err)
	}
	a, err = conn.Do(http.MethodPost, "/events/"+event.ID+"/seats", "", map[string][]string{"seat_nos": seats})
	if err == nil && a.StatusCode != http.StatusCreated {
		err = fmt.Errorf("%d %s", a.StatusCode, a.Body)
	}
	if err != nil {
		return "", fmt.Errorf("overbookr: seats of %s: %w", name, err)
	}
	return event.ID, nil
}

// peerHold asks for seats of event and returns the hold's token, or
// errConflict when a seat is not available (its only 409).
func peerHold(conn *apiclient.Conn, eventID string, seats []string) (string, error) {
	a, err := conn.Do(http.MethodPost, "/holds/", "", map[string]any{"event_id": eventID, "seat_nos": seats})
	if err != nil {
		return "", fmt.Errorf("hold: %w", err)
	}
	switch a.StatusCode {
	case http.StatusCreated:
		var answer struct {
			HoldToken string `json:"hold_token"`
		}
		if json.Unmarshal(a.Body, &answer) != nil || answer.HoldToken == "" {
			return "", fmt.Errorf("hold: 201 without a hold_token: %s", a.Body)
		}
		return answer.HoldToken, nil
	case http.StatusConflict:
		return "", errConflict
	}
	return "", fmt.Errorf("hold: %d %s", a.StatusCode, a.Body)
}
