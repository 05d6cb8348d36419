package relay

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Env is what the contract hands a relay instance in its environment.
type Env struct {
	DatabaseURL string        // OUTBOX_DATABASE_URL
	Brokers     []string      // OUTBOX_BROKERS, comma-separated host:port
	Topic       string        // OUTBOX_TOPIC
	Instance    string        // OUTBOX_INSTANCE_ID: stable across restarts of one instance
	Lease       time.Duration // OUTBOX_LEASE_MS
	IDHeader    string        // OUTBOX_ID_HEADER
}

// FromEnv reads the contract's variables; a missing or malformed one is an
// error that names it.
func FromEnv(getenv func(string) string) (Env, error) {
	e := Env{
		DatabaseURL: getenv("OUTBOX_DATABASE_URL"),
		Topic:       getenv("OUTBOX_TOPIC"),
		Instance:    getenv("OUTBOX_INSTANCE_ID"),
		IDHeader:    getenv("OUTBOX_ID_HEADER"),
	}
	for name, v := range map[string]string{"OUTBOX_DATABASE_URL": e.DatabaseURL, "OUTBOX_TOPIC": e.Topic,
		"OUTBOX_INSTANCE_ID": e.Instance, "OUTBOX_ID_HEADER": e.IDHeader, "OUTBOX_BROKERS": getenv("OUTBOX_BROKERS")} {
		if v == "" {
			return Env{}, fmt.Errorf("relay: %s is not set", name)
		}
	}
	e.Brokers = strings.Split(getenv("OUTBOX_BROKERS"), ",")
	ms, err := strconv.Atoi(getenv("OUTBOX_LEASE_MS"))
	if err != nil || ms < 1 {
		return Env{}, fmt.Errorf("relay: OUTBOX_LEASE_MS=%q: want a whole number of milliseconds >= 1", getenv("OUTBOX_LEASE_MS"))
	}
	e.Lease = time.Duration(ms) * time.Millisecond
	return e, nil
}

// MustFromEnv is FromEnv of the process's environment; it exits with
// status 2 naming what is missing.
func MustFromEnv() Env {
	e, err := FromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return e
}
