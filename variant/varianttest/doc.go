// Package varianttest holds broken frames for testing graders: the
// reference's relay, consumer and service, each written out as a learner
// writes them, with one thing switched off or wrong (a Slip), chosen by
// name and made to act from its n-th occasion on. Without a slip each
// frame holds everywhere, as the reference does; with one, the lab must
// say so through every door.
//
//	for _, s := range varianttest.Slips() {
//		v := s.Variant(1) // the slip from its first occasion on
//		...
//	}
//
// The slips are the examiner's kind of variant: each is harmful in
// production, and each a learner plausibly writes.
package varianttest
