package pglab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/real/cleanup"
)

// ErrNoServer is wrapped by StartServer's error when no PostgreSQL server
// can be started here (no binaries); the tests skip with it under -short and
// fail with it otherwise.
var ErrNoServer = errors.New("no PostgreSQL server can be started (Debian: apt-get install postgresql)")

// Server is a throwaway PostgreSQL: a cluster made by initdb in a temporary
// directory, run by a user that is not root, listening on 127.0.0.1 at a
// free port and on a Unix socket in its directory only, with
// wal_level=logical. Stop stops it and removes the directory.
//
// fsync is off: the tests here kill relays, never the server, so what a
// commit survives is the server's business, not theirs.
type Server struct {
	Port      int
	dir       string
	databases atomic.Int64
	cmd       *exec.Cmd
	cred      *syscall.Credential
	// exited is closed when the server process ended, with waitErr.
	exited  chan struct{}
	waitErr error
	// release and cancelStop unregister the server from package cleanup.
	release, cancelStop func()
}

// StartServer starts a server and waits until it accepts connections. A
// server that cannot start is noticed at once: the error names the cause
// (a directory the server's user cannot enter, initdb's complaint, the
// server's log when it exits). The server runs in a process group of its
// own and shuts down when this process dies (see package cleanup); Stop
// stops it and removes its directory.
func StartServer() (*Server, error) { return startServer() }

// startServer starts a server with extra settings ("name=value").
func startServer(settings ...string) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := cleanup.MkdirTemp("", "outboxlab-pg-")
	if err != nil {
		return nil, fmt.Errorf("pglab: %w", err)
	}
	s := &Server{dir: dir}
	if err := s.start(bin, settings); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// start runs initdb and the server, and waits until the server accepts
// connections or exits.
func (s *Server) start(bin string, settings []string) error {
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: run the cluster as the postgres
		// user the package created (or nobody).
		var err error
		if s.cred, err = unprivileged(); err != nil {
			return err
		}
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return fmt.Errorf("pglab: %w", err)
		}
		if err := enterable(s.dir, s.cred); err != nil {
			return err
		}
	}
	data := filepath.Join(s.dir, "data")
	initdb := s.command(syscall.SIGKILL, filepath.Join(bin, "initdb"), "-D", data, "-U", "lab", "--auth=trust", "--no-sync", "-E", "UTF8")
	if out, err := initdb.CombinedOutput(); err != nil {
		if cleanup.Stopping() { // killed by the signal handler: its output says nothing
			return fmt.Errorf("pglab: initdb: %w", cleanup.ErrStopping)
		}
		return fmt.Errorf("pglab: initdb: %v: %s", err, out)
	}
	var err error
	if s.Port, err = freePort(); err != nil {
		return err
	}
	// SIGQUIT when this process dies: PostgreSQL's immediate shutdown,
	// which stops its backends and frees its shared memory.
	args := []string{"-D", data, "-p", strconv.Itoa(s.Port), "-k", s.dir}
	for _, set := range append([]string{"listen_addresses=127.0.0.1", "wal_level=logical", "fsync=off",
		"max_connections=100", "max_replication_slots=16", "max_wal_senders=16"}, settings...) {
		args = append(args, "-c", set)
	}
	s.cmd = s.command(syscall.SIGQUIT, filepath.Join(bin, "postgres"), args...)
	logFile, err := os.Create(filepath.Join(s.dir, "server.log"))
	if err != nil {
		return fmt.Errorf("pglab: %w", err)
	}
	defer logFile.Close()
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("pglab: start postgres: %w", err)
	}
	s.exited = make(chan struct{})
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	if s.release, err = cleanup.Track(s.cmd, syscall.SIGQUIT); err != nil {
		return fmt.Errorf("pglab: %w", err)
	}
	s.cancelStop = cleanup.OnInterrupt(func() { s.shutdown(syscall.SIGQUIT, 5*time.Second) })
	return s.waitReady()
}

// waitReady waits until the server accepts connections, at most 30 s; a
// server that exits meanwhile is reported at once, with its log.
func (s *Server) waitReady() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.DSN())
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-s.exited:
			if cleanup.Stopping() {
				return fmt.Errorf("pglab: the server: %w", cleanup.ErrStopping)
			}
			log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			return fmt.Errorf("pglab: the server exited as it started (%v): %s", s.waitErr, strings.TrimSpace(string(log)))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			return fmt.Errorf("pglab: the server did not accept connections within 30 s: %v\n%s", err, log)
		}
	}
}

// Database creates a fresh database on the server with the schema
// installed, and returns a pool of connections to it.
func (s *Server) Database(ctx context.Context) (*pgxpool.Pool, error) {
	dsn, err := s.EmptyDatabase(ctx)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.New(ctx, dsn+"&pool_max_conns=12")
	if err != nil {
		return nil, err
	}
	if err := Install(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// EmptyDatabase creates a fresh database on the server, with no tables,
// and returns its connection string.
func (s *Server) EmptyDatabase(ctx context.Context) (string, error) {
	admin, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		return "", fmt.Errorf("pglab: create database: %w", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("lab%d", s.databases.Add(1))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pglab: create database: %w", err)
	}
	return fmt.Sprintf("postgres://lab@127.0.0.1:%d/%s?sslmode=disable", s.Port, name), nil
}

// DSN is the connection string of the server's postgres database.
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://lab@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
}

// Stop stops the server (a fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	if s.cancelStop != nil {
		s.cancelStop()
	}
	s.shutdown(syscall.SIGINT, 20*time.Second)
	return cleanup.RemoveAll(s.dir)
}

// shutdown stops the server with sig (SIGINT: fast, SIGQUIT: immediate)
// and waits for it, killing it after limit.
func (s *Server) shutdown(sig syscall.Signal, limit time.Duration) {
	if s.exited == nil {
		return
	}
	s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
	case <-time.After(limit):
		s.cmd.Process.Kill()
		<-s.exited
	}
	if s.release != nil {
		s.release()
	}
}

// command prepares a command of the server's: run by the server's user,
// in its directory, in a process group of its own, sent stop when this
// process dies.
func (s *Server) command(stop syscall.Signal, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	cleanup.Prepare(cmd, stop)
	return cmd
}

// Available returns nil if a server can be started here, and an error
// wrapping ErrNoServer if not, without starting one.
func Available() error {
	_, err := binDir()
	return err
}

// binDir finds the directory of initdb and postgres: pg_config's, else
// Debian's newest /usr/lib/postgresql/N/bin.
func binDir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := string(out[:len(out)-1])
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoServer
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("pglab: running as root, and neither user postgres nor nobody exists: %w", ErrNoServer)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pglab: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// enterable checks that the server's user can reach dir: each directory
// on the way must let it search. os.MkdirTemp makes a directory only its
// owner can enter, so a TMPDIR below another one (go test's, a home
// directory) stops the server before it starts; without this check, the
// start failed with "fork/exec .../initdb: permission denied".
func enterable(dir string, cred *syscall.Credential) error {
	path := "/"
	for _, part := range strings.Split(strings.TrimPrefix(filepath.Clean(dir), "/"), "/") {
		path = filepath.Join(path, part)
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			return fmt.Errorf("pglab: %s: %w", path, err)
		}
		search := uint32(0o001)
		switch {
		case st.Uid == cred.Uid:
			search = 0o100
		case st.Gid == cred.Gid:
			search = 0o010
		}
		if st.Mode&search == 0 {
			who := strconv.Itoa(int(cred.Uid))
			if u, err := user.LookupId(who); err == nil {
				who = u.Username + " (uid " + who + ")"
			}
			return fmt.Errorf("pglab: the server runs as user %s, which cannot enter %s (mode %o, owner uid %d), on the way to its directory %s: set TMPDIR to a directory every user can enter, e.g. TMPDIR=/tmp",
				who, path, st.Mode&0o7777, st.Uid, dir)
		}
	}
	return nil
}
