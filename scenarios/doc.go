// Package scenarios is the lab's catalogue: the standard workload, the rows
// of the crash matrix (its crash rows in the boundary registry,
// boundaries.go, each in its boundary's entry; its fault rows from the
// fault kinds that declare them, sim.FaultRows), the variants graded by
// it, and the named stories of the course chapters that labrun plays back
// as timelines.
//
// # Scenario files
//
// A story is a text file in stories/ (embedded into labrun; its name is the
// file name without a leading ordering number and ".txt":
// "120-gap.txt" is the scenario "gap"). `labrun scenario --file F` plays
// any file without a rebuild. One line per item; # lines are the
// narrative, #de lines the same in German (labrun --lang de); blank lines
// are ignored:
//
//	# Sequence numbers tell a gap from a duplicate: billing parks #3 until
//	# #2 arrives, then applies both in order. Chapter 001.
//	#de Sequenznummern unterscheiden eine Lücke von einem Duplikat: Billing
//	#de parkt #3, bis #2 ankommt, und wendet dann beide an. Kapitel 001.
//
//	summary o-1's first amendment is delayed a minute; the second arrives first
//	summary-de die erste Änderung von o-1 verspätet sich um eine Minute   (optional)
//	variant outbox                  the variant when none is chosen (default outbox)
//	point reorder                   the matrix row whose declaration judges the run (default: expected OK)
//	expect MISMATCH                 what the story's own variant ends with, when no row says it
//	ids e-5531 e-5532               the message ids handed out first (then drawn from the seed)
//	seed 1                          the seed when none is chosen (default 1)
//	relays 2                        relay instances (default 1, at most 100)
//	services 2                      service instances (default 1, at most 100)
//	consumers 2                     billing instances on one subscription (default 1, at most 10; no billing crashes then)
//	restart-delay 1h                how long a crashed process stays down (default 5s)
//	workload standard               the matrix's workload (or one-order: o-1 placed, then amended;
//	                                  or orders N EVERY: o-1 ... o-N placed EVERY apart)
//	history 20000                   SENT messages the outbox holds from the year before
//	at 0s place o-1 10.00 EUR       a command at a virtual time; place, amend and
//	at 2s amend o-1 2.50 EUR gift wrap     cancel take a text at the end (the insurance
//	                                  story's claims service releases: release claim-4711 1250.00 EUR)
//	at 4s cancel o-1 changed mind
//	cleanup 8d1m                    a retention cleanup at that time
//	resend o-1#1 2h                 an operator publishes the SENT message again from the outbox
//	crash relay.after-send@2        a crash at the 2nd time the point is reached
//	fault delay o-1#2 1m            a fault, one of:
//	                                  broker-outage FROM FOR
//	                                  publish-timeout-stored|publish-timeout-dropped TARGET
//	                                  duplicate-delivery|reorder|poison|corrupt-once|
//	                                  unknown-version|unknown-type|extra-field|rejected TARGET
//	                                  wrong-currency TARGET        (an amendment: wrong-currency o-1#2)
//	                                  delay TARGET FOR
//	                                  stall PROCESS POINT FOR      (stall relay-1 relay.before-send 40s)
//	                                  slow-commit PROCESS FOR      (slow-commit service-1 3s)
//	                                  clock-skew PROCESS SKEW      (clock-skew relay-2 1m; negative: behind)
//	                                  kill PROCESS AT              (kill relay-1 4s)
//	                                  commit-failure BOUNDARY@K    (commit-failure relay.mark@2: that commit fails)
//	                                  commit-failure BOUNDARY@K-L [TARGET]  (consumer.commit@1-3 o-1#1: three in a row, of o-1#1's deliveries)
//
//	--- expected
//	(what labrun prints for the file's variant and seed)
//
// Only one of each word per line; the annotations above are not part of the
// format. summary, summary-de, variant, point, expect, seed, relays,
// services, consumers, history and restart-delay come at most once: a
// second one is an error, not a silent replacement. Times are Go durations with an optional number of days in front
// ("8d1m"). Everything below the separator is the expected output: `go
// test ./lab/cli` compares it, and `go test ./lab/cli -update`
// rewrites it. A line that does not parse is an error naming the file, the
// line and what is valid there; so is a line that names what the story
// does not have: a fault aimed at an event its workload never makes, a
// process it does not run, a crash point its variant never reaches (the
// file is run once without its crashes to see).
package scenarios
