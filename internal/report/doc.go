// Package report draws runs of the lab as self-contained HTML pages: one
// run (a scenario, an exploration's counterexample) or a whole crash
// matrix whose cells link to their counterexamples in the same file.
//
// A run is an SVG sequence diagram, one lane per process (the order
// service, the relays, the broker, billing), with publishes, deliveries and
// acknowledgements as arrows, crashes, restarts, stalls and faults marked
// where they happen and the phases (run, quiesce, retention, replay) as
// bands. A slider and the arrow keys step through the events; beside the
// diagram, the durable tables after the current event, with what it
// changed highlighted. The verdict names each violation and links to the
// event where it went wrong, with the command that replays the run.
//
// A page of text (WriteArticle: the annotated reference that labwhy
// writes) has the same style.
//
// Pages need no network: styles, script and data are inline, and without
// script the diagram, the verdict's links and the matrix's links still
// work. Everything is drawn by html/template and hand-written SVG.
package report
