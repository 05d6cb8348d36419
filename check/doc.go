// Package check is the lab's invariant checker. Given what the durable
// systems hold after a run, Check returns every violation as a value, in the
// style of testing/fstest.TestFS: the crash matrix, the property tests and
// labrun all call it, so they can never disagree about what "broken" means.
//
// The outcomes, from worst to mildest:
//
//	LOST          a committed business change has no effect downstream, and
//	              no message for it is left anywhere to deliver it
//	PHANTOM       a downstream effect exists for a change never committed
//	DUPLICATE     a business effect was applied more than once
//	OUT_OF_ORDER  an older event was applied after a newer one of its aggregate
//	STUCK         a message is neither SENT nor DEAD_LETTER after quiesce
//
// OK means no violation at all.
package check
