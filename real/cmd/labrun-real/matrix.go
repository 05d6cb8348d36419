package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"outboxlab/internal/shard"
	"outboxlab/real/pglab"
	"outboxlab/real/sqlitelab"
	"outboxlab/variant"
)

// matrixFlags are the flags of labrun-real matrix.
type matrixFlags struct {
	variants, points list
	workers, relays  int
	races            int
	postgres, full   bool
	shard, format    string
}

func (f *matrixFlags) define(fs *flag.FlagSet) {
	fs.Var(&f.variants, "variant", "a variant (repeatable; default: "+strings.Join(sqlitelab.VariantNames(), ", ")+
		"; with --postgres: "+strings.Join(sqlitelab.DefaultVariants(true, false), ", ")+", and with --full every one)")
	fs.Var(&f.points, "point", "a crash point or fault row (repeatable; default: every one)")
	fs.IntVar(&f.workers, "workers", 4, "cells run at once (>= 1)")
	fs.IntVar(&f.relays, "relays", 2, "the most relays a crash point's cell runs with: 2 (as the simulator) or 3")
	fs.IntVar(&f.races, "races", 0, "how often a race cell runs, each with its own seed (default 3, with --full 10)")
	fs.BoolVar(&f.postgres, "postgres", false, "the order database on a PostgreSQL server started for the run")
	fs.BoolVar(&f.full, "full", false, "every occurrence of every point with every relay count, and the points the simulator never reaches")
	fs.StringVar(&f.shard, "shard", "", "run one shard I/N of the cells (1 <= I <= N); merge the shards' JSON with labrun-real merge")
	fs.StringVar(&f.format, "format", "table", "table or json")
}

// config turns the flags into a matrix configuration; the message says
// what is wrong with them.
func (f *matrixFlags) config(fs *flag.FlagSet, exe string) (sqlitelab.MatrixConfig, string) {
	cfg := sqlitelab.MatrixConfig{Variants: f.variants, Points: f.points, Program: exe, Workers: f.workers, MaxRelays: f.relays, Full: f.full, Races: f.races}
	if msg := badInput(fs, "--workers", f.workers); msg != "" {
		return cfg, msg
	}
	if f.relays != 2 && f.relays != 3 {
		return cfg, fmt.Sprintf("--relays %d: want 2 or 3", f.relays)
	}
	if f.races < 0 {
		return cfg, fmt.Sprintf("--races %d: want a number >= 1", f.races)
	}
	if f.format != "table" && f.format != "json" {
		return cfg, fmt.Sprintf("--format %q: want table or json", f.format)
	}
	if f.shard != "" {
		var err error
		if cfg.Shard, err = shard.Parse(f.shard); err != nil {
			return cfg, err.Error()
		}
	}
	return cfg, ""
}

func matrixCommand(fs *flag.FlagSet, args []string, exe string, stdout, stderr io.Writer) int {
	var f matrixFlags
	f.define(fs)
	if err := fs.Parse(args); err != nil {
		return parseExit(err, stdout, "matrix", fs)
	}
	cfg, msg := f.config(fs, exe)
	if msg != "" {
		fmt.Fprintf(stderr, "labrun-real matrix: %s\n%s\n", msg, usage)
		return 2
	}
	if f.postgres {
		server, err := pglab.StartServer()
		if err != nil {
			fmt.Fprintln(stderr, "labrun-real matrix:", err)
			return 1
		}
		defer server.Stop()
		for range f.workers {
			dsn, err := server.EmptyDatabase(context.Background())
			if err != nil {
				fmt.Fprintln(stderr, "labrun-real matrix:", err)
				return 1
			}
			cfg.Postgres = append(cfg.Postgres, dsn)
		}
	}
	start := time.Now()
	cells, err := sqlitelab.Matrix(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "labrun-real matrix:", err)
		if errors.Is(err, sqlitelab.ErrUnknown) || errors.Is(err, sqlitelab.ErrNotInMatrix) {
			return 2
		}
		return 1
	}
	out := newReport(cfg, cells)
	if f.format == "json" {
		if err := out.writeJSON(stdout); err != nil {
			fmt.Fprintln(stderr, "labrun-real matrix:", err)
			return 1
		}
	} else {
		out.writeTable(stdout, time.Since(start), cfg.Workers)
	}
	if !out.agrees() {
		return 1
	}
	return 0
}

// letter is the matrix's one-character form of an outcome, as labrun
// prints it.
func letter(o variant.Outcome) string { return o.Letter() }
