// Package backlog computes chapter 001's backlog arithmetic and checks it with
// a message-level simulation of the real relay.
//
// Events arrive at R per second; the broker is down for D; the relay
// publishes at most P per second once it is back. Then
//
//	backlog = R · D                      (500/s · 20 min = 600,000)
//	drain   = backlog / (P − R)          (600,000 / 300/s = 33 min 20 s)
//
// and when P ≤ R the backlog never drains. Simulate runs the outbox relay
// of package outbox against a broker that is down for D, with the relay
// limited to P messages per second, and reports how long the backlog
// really took to drain and how old the oldest unsent message got: the
// figure chapter 001 says to watch, because a small queue can already be
// critical when its oldest entry misses a deadline.
//
// The simulation is bounded (PlanFor): it refuses a relay not faster than
// the arrivals (ErrNeverDrains: nothing drains) and a drain of more
// messages or steps than it runs in about a minute (ErrTooLong), and runs
// a relay faster than MaxRelay at MaxRelay (Plan.Capped). Its memory does
// not grow with the backlog: the outbox holds what the relay's next claim
// can reach, the arrivals behind it wait as counts (see Simulate).
//
// Chapter 004 adds growth arithmetic for an outbox nobody cleans up: 2,000
// messages a day are about 730,000 a year (Growth).
package backlog
