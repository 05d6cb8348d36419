// Package mistakes holds the deliberate mistakes of the lab: ways to build
// the order service, relay or consumer that look reasonable in a review and
// break under a crash or a broker fault. DO NOT COPY ANY OF THIS CODE.
//
// Each variant names its mistake, quotes the course chapter that describes it,
// and declares the outcomes theory predicts, so that the crash matrix proves
// the prediction. The correct reference is variant.Outbox; read that one.
package mistakes
