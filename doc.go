// Package outboxlab is a deterministic crash-simulation and teaching lab for
// the transactional outbox pattern.
//
// The top level reads in three parts, and its folders are floors: a
// package imports its own room and the floors below it, never one above
// (layers_test.go holds the tree to it): the reference; the contract
// (variant); the alternatives and mistakes beside the simulator, neither
// importing the other; the catalogue (scenarios) naming both; the judge's
// doors (lab, internal); the commands; the course; the real parts.
//
// The system under test, its alternatives and its mistakes:
//
//	domain      orders, money, versioned events (the business)
//	store       transactional in-memory database with a commit log
//	effect      effect boundaries: where the simulator may crash a process
//	  effecttest  stand-ins for the components' own tests
//	broker      durable broker with at-least-once delivery and faults
//	outbox      the outbox table and the relay (the reference to copy)
//	orders      the order service: order + outbox row in one transaction
//	inbox       the idempotent, per-aggregate ordered consumer
//	billing     billing's ledger and accounts: the consumer's effect
//	insurance   chapter 004's story: claim 4711, message e-5531, one payout
//	alternatives  the correct alternatives of the chapters
//	  listen      listen to yourself (publish, then consume)
//	  cdc         change data capture (tail the commit log)
//	  skiplocked  chapter 003's relay: row locks held across the publish
//	  twophase    chapter 004: order and event in one two-phase commit
//	  synccall    chapter 004: call billing, then commit
//	  legacycdc   chapter 004: a legacy table's rows from the log
//	  gapfetch    chapter 001: a consumer that fetches the event a gap waits for
//	  gapsnapshot  chapter 001: a gap reconciled by the order's snapshot (loses what a skipped event did on its own)
//	mistakes    the deliberate mistakes, kept apart; do not copy
//	variant     the contract between them and the lab: what a variant provides
//	  varianttest  broken frames (relay, consumer, service) to test graders with
//	lang        the one way to speak two languages: Text, Lang, Detect
//	  langtest    finds English prose in German output, for the tests
//
// The lab that judges them:
//
//	sim         the simulator: virtual time, seeded choices, crashes, faults
//	  check       the invariant checker (LOST, PHANTOM, DUPLICATE, ...)
//	scenarios   the standard workload, matrix rows, named stories
//	lab         the judge and its doors
//	  explore     random schedules, shrunk counterexamples, the fuzz target
//	  verdict     the one grader: a variant at a depth, a typed verdict
//	  grade       the grader as one call in a Go test, with replay flags
//	  labtest     what the broken-variant tests ask the lab (a cell, exploration) and the frames they build on
//	  cli         labrun, the command line, as a library a course's own labrun uses
//	cmd/labrun  the lab's labrun: one line
//	cmd/labwhy  the mutation analysis and the annotated reference
//	internal    what nobody outside the module imports
//	  backlog     chapter 001's backlog arithmetic and its simulation
//	  metrics     what an operator watches over a run: statuses, oldest unsent age, alerts
//	  report      HTML pages of a run and of the matrix, drawn in SVG
//	  mutation    the lab judged by the mutants of the reference it catches
//	    on          the switch the mutated copies ask (never in the reference)
//	  golden      the tests' golden files (-update rewrites them)
//	  longtest    the mark of a test's exhaustive form and the CI step that runs it
//	  shard       --shard I/N: one parser, one split, one merge, for labrun explore, labwhy
//	              and real's labrun-real (Go lets outboxlab/real/... import it)
//
// The course around them:
//
//	exercises   the course's exercises: starters, hints, solutions
//	  dedup, ordering, recovery, sendfirst
//	  frame       the consumer around the learner's handle (dedup, ordering)
//	  internal/startertest  what a learner reads of each starter, kept as golden files
//	examples/courselab  a course's own labrun with a learner's variant
//	  course      the course's variant, as a learner hands it in
//
// In a module of its own, so that the core depends on go-cmp and rapid only:
//
//	real        the system on real parts, judged by the same checker
//	  sqlitelab   one process per part, SIGKILL at the crash points, SIGSTOP at the stalls; SQLite files, or the orders on PostgreSQL
//	  pglab       PostgreSQL: SKIP LOCKED relays, leases, the commit-visibility gap, the crash matrix
//	  kafkalab    Kafka (kfake) as the broker: keys, partitions, a consumer group
//	  verify      a relay the lab did not write, any language, graded against CONTRACT.md;
//	              a consumer, against CONSUMERS.md
//	    relays      programs that know only the contract:
//	      relay, reference  the reference relay's steps, and its program
//	      mark-before-send, recover-all, no-fencing, claim-without-lock  broken relays,
//	      no-backoff, no-inflight-recovery, unordered-claim  each the reference with one change
//	      crc32-partitioner, release-all, no-reconnect, ignores-sigterm  the same, of the contract's later rules
//	      slot-without-send  a CDC relay (--sent-by slot) that confirms its slot and publishes nothing
//	      python      a relay in another language (no Go code)
//	      debezium    Debezium's embedded engine with its outbox event router (Java, a Maven project)
//	      watermill   Watermill's forwarder (a Go module of its own), graded in ECOSYSTEM.md
//	    consumers   programs that know only the consumer contract:
//	      consumer, reference  the reference consumer's steps, and its program
//	      dedup-outside-tx, auto-commit, arrival-order, max-version, no-dedup,  broken consumers,
//	      dead-letters-transient, retries-poison, no-version-check,             each the reference
//	      zombie-memory, sticky-memory, float-amounts, dies-on-fetch-error      with one change
//	      ignores-sigterm, dead-letters-key, lenient-amounts, skips-unknown-type, commits-polled-on-stop  the same, found by consumers written from the page alone
//	      gives-no-partition-back  a correct consumer whose assignor leaves the rebalance round unmade
//	      python      a consumer in another language (no Go code)
//	  cleanup     what makes a program of the module leave nothing behind (process groups, a handler, a janitor)
//	  internal/realtest  what the module's tests share: the mark of a long test
//	  cmd/labrun-real  the crash matrix on real parts, beside the simulator's; verify
//
// crashmatrix_test.go in this directory asserts every cell of the crash
// matrix against the variants' declarations. The faulty variants outside
// the catalogue that the lab must catch live beside what catches them
// (sim/check's brokenvariants_test.go, sim's polled_test.go, ...).
package outboxlab
