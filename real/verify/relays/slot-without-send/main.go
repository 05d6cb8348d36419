// Command slot-without-send is a broken CDC relay (labrun-real verify
// --sent-by slot): it confirms the slot OUTBOX_SLOT up to the server's
// current position every 100 ms and publishes nothing.
//
// MISTAKE: it confirms what the broker never acknowledged, as a CDC relay
// that flushes its position before its produce is answered does when it
// dies in between: every row is sent by the contract's notion and none is
// in the broker (LOST).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	conn, err := pgx.Connect(ctx, os.Getenv("OUTBOX_DATABASE_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close(context.Background())
	said := ""
	for ctx.Err() == nil {
		var at string
		err := conn.QueryRow(ctx, `SELECT end_lsn::text FROM pg_replication_slot_advance($1, pg_current_wal_lsn())`, os.Getenv("OUTBOX_SLOT")).Scan(&at)
		if err != nil && ctx.Err() == nil {
			// Another instance holds the slot (55006) for the moment: a
			// CDC relay's other instances stand by and try again.
			fmt.Fprintln(os.Stderr, err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if at != said {
			fmt.Fprintln(os.Stderr, "confirmed up to", at)
			said = at
		}
		time.Sleep(100 * time.Millisecond)
	}
}
