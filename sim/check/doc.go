// Package check is the lab's invariant checker. Given what the durable
// systems hold after a run, Check returns every violation as a value, in the
// style of testing/fstest.TestFS: the crash matrix, the property tests and
// labrun all call it, so they can never disagree about what "broken" means.
//
// The outcomes, from worst to mildest:
//
//	NONDETERMINISTIC the same run, made twice from one seed, went two
//	              ways; no one run's check can say it: the grader
//	              replays runs and compares them (sim.RunTwice)
//	LOST          a committed business change has no effect downstream, and
//	              no message for it is left anywhere to deliver it; or a
//	              command the service answered with success is not
//	              committed (World.Acknowledged)
//	PHANTOM       a downstream effect exists for a change never committed
//	DUPLICATE     a business effect was applied more than once, or one
//	              change was published under two message ids
//	OUT_OF_ORDER  an older event was applied after a newer one of its aggregate,
//	              or stored at the broker after it (see order.go)
//	MISMATCH      an effect exists once but differs from the committed change
//	              (kind, amount), or a ledger or account does not add up
//	UNSAFE        a safety property broke during the run (see Safety)
//	STUCK         a message is neither SENT nor DEAD_LETTER after quiesce
//	GAVE_UP       a dead letter although every fault of the run was transient
//	STORM         more publish attempts than the retry policy allows
//	LATE          a message waited although a relay could have sent it: a
//	              relay ended its step still holding its claim, or slept
//	              past it longer than its failures excuse (World.Delays)
//
// OK means no violation at all.
//
// Content, not labels: the committed changes are read from the order
// database's commit log (Changes), never from the events a variant wrote, and
// billing's ledger is compared with them one by one, kind and amount, and
// every account with its committed order (it exists, in the order's
// currency, at the order's total).
//
// Facts, not claims: a lease belongs to the process that committed the
// claim (store.Commit.Process), not to the owner name a relay wrote
// (SafetyOf). The budgets of STORM, GAVE_UP and LATE and the retention a
// cleanup must keep come from the policy the variant declares
// (RelayPolicy, ConsumerPolicy; the course's when it declares none), and
// the lab bounds every policy (the limits in policy.go): a policy outside
// them is a finding of its own where a run puts it to the test (PolicyFindings,
// in English and German). A declared policy is judged both ways: a relay
// that does more than it declares is STORM or GAVE_UP, one that writes a
// later retry time or a longer lease than it declares is LATE (lazy.go).
// A variant's ports are cross-checked against the facts: a dead letter or
// a held message a port hides is STUCK (World.Hidden, ports.go). An
// aggregate's order is judged where the broker stores it, not only where
// billing applies it (order.go).
package check
