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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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
}

// StartServer starts a server and waits until it accepts connections.
func StartServer() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "outboxlab-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: run the cluster as the postgres
		// user the package created (or nobody).
		if s.cred, err = unprivileged(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := s.command(filepath.Join(bin, "initdb"), "-D", data, "-U", "lab", "--auth=trust", "--no-sync", "-E", "UTF8")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pglab: initdb: %v: %s", err, out)
	}
	if s.Port, err = freePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.cmd = s.command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(s.Port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "wal_level=logical", "-c", "fsync=off",
		"-c", "max_connections=100", "-c", "max_replication_slots=16", "-c", "max_wal_senders=16")
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pglab: start postgres: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, s.DSN())
		if err == nil {
			conn.Close(ctx)
			return s, nil
		}
		if ctx.Err() != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			s.Stop()
			return nil, fmt.Errorf("pglab: the server did not accept connections within 30 s: %v\n%s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
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
	defer os.RemoveAll(s.dir)
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	return nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
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
