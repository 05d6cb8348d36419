// Package labtest is what a test of the lab asks about a variant it
// built to break something: its cell at one row of the course's matrix,
// whether it holds at every row, whether exploration catches it; and the
// reference with one part changed, the frame most of those variants are.
// The tests that break a check live beside that check, in an external
// test package (check_test, sim_test, ...), and share these.
//
//	v := labtest.WithRelayConfig("many-attempts", func(c *outbox.Config) { c.MaxAttempts = 100 })
//	outcome, lines := labtest.Cell(t, v, "rejected")
package labtest
