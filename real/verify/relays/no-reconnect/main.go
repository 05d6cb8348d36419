// Command no-reconnect is the reference relay with one change: it opens
// its database connection once, at start, and never again. When the
// database ends that connection (a failover, pg_terminate_backend, an
// idle timeout), every claim fails from then on and the relay logs its
// errors until it is stopped; other instances cover for it, if there are
// any. verify: STUCK at db-connections-killed and
// db-connection-killed-alone, naming the instance that stayed cut off.
package main

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outboxlab/real/verify/relays/relay"
)

func main() {
	relay.Main(func(r *relay.Relay) {
		var opened atomic.Bool
		r.Pool = func(cfg *pgxpool.Config) {
			cfg.MaxConns = 1
			// MISTAKE: one connection, opened at start; once the database
			// ended it, no new one is opened.
			cfg.BeforeConnect = func(context.Context, *pgx.ConnConfig) error {
				if opened.Swap(true) {
					return errors.New("no new database connection: this relay connects once, at start")
				}
				return nil
			}
		}
	})
}
