package pglab

import (
	"errors"
	"sync"
)

// Lazy is a server started the first time something asks for it: a test
// binary's shared server, which a run of its tests that needs none (go test
// -run that selects other tests) never starts. The zero value is ready to
// use.
type Lazy struct {
	once   sync.Once
	server *Server
	err    error
}

// Server starts the server on the first call and returns it, or the error
// its start gave (wrapping ErrNoServer when no server can be started here).
func (l *Lazy) Server() (*Server, error) {
	l.once.Do(func() { l.server, l.err = StartServer() })
	if l.server == nil && l.err == nil {
		return nil, errors.New("pglab: the server was asked for after Stop")
	}
	return l.server, l.err
}

// Stop stops the server if it was started.
func (l *Lazy) Stop() {
	l.once.Do(func() {}) // nothing started: nothing starts after Stop
	if l.server != nil {
		l.server.Stop()
	}
}
