package consumer

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Env is what the contract hands a consumer instance in its environment.
type Env struct {
	DatabaseURL    string        // BILLING_DATABASE_URL
	Brokers        []string      // BILLING_BROKERS, comma-separated host:port
	Topic          string        // BILLING_TOPIC
	Group          string        // BILLING_GROUP
	Instance       string        // BILLING_INSTANCE_ID: stable across restarts of one instance
	SessionTimeout time.Duration // BILLING_SESSION_TIMEOUT_MS
	Heartbeat      time.Duration // BILLING_HEARTBEAT_INTERVAL_MS
}

// FromEnv reads the contract's variables; a missing or malformed one is an
// error that names it.
func FromEnv(getenv func(string) string) (Env, error) {
	e := Env{
		DatabaseURL: getenv("BILLING_DATABASE_URL"),
		Topic:       getenv("BILLING_TOPIC"),
		Group:       getenv("BILLING_GROUP"),
		Instance:    getenv("BILLING_INSTANCE_ID"),
	}
	for _, name := range []string{"BILLING_DATABASE_URL", "BILLING_BROKERS", "BILLING_TOPIC", "BILLING_GROUP", "BILLING_INSTANCE_ID"} {
		if getenv(name) == "" {
			return Env{}, fmt.Errorf("consumer: %s is not set", name)
		}
	}
	e.Brokers = strings.Split(getenv("BILLING_BROKERS"), ",")
	for name, d := range map[string]*time.Duration{"BILLING_SESSION_TIMEOUT_MS": &e.SessionTimeout, "BILLING_HEARTBEAT_INTERVAL_MS": &e.Heartbeat} {
		ms, err := strconv.Atoi(getenv(name))
		if err != nil || ms < 1 {
			return Env{}, fmt.Errorf("consumer: %s=%q: want a whole number of milliseconds >= 1", name, getenv(name))
		}
		*d = time.Duration(ms) * time.Millisecond
	}
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
