package verify_test

import (
	"fmt"

	"outboxlab/lang"
	"outboxlab/real/verify"
)

// The rounds of a run: three instances without a fault, one round for
// each fault, aimed at the second produce request, one instance alone
// cut off from its database, then random rounds drawn from the seed.
func ExampleRounds() {
	for _, r := range verify.Rounds(1, 1) {
		fmt.Printf("%-27s %d  %v\n", r.Name, r.Instances, r.Faults)
	}
	fmt.Println(verify.Describe(verify.KillBeforeAnswer, lang.German))
	// Output:
	// three-instances             3  []
	// kill-on-arrival             2  [kill-on-arrival@2]
	// kill-before-answer          2  [kill-before-answer@2]
	// kill-after-answer           2  [kill-after-answer@2]
	// stall                       2  [stall@2]
	// stall-outage                2  [stall-outage@2]
	// relay-restart               2  [relay-restart@2]
	// broker-outage               2  [broker-outage@2]
	// publish-timeout-stored      2  [publish-timeout-stored@2]
	// publish-timeout-dropped     2  [publish-timeout-dropped@2]
	// db-connection-killed        2  [db-connection-killed@2]
	// db-connections-killed       2  [db-connections-killed@2]
	// db-connection-killed-alone  1  [db-connection-killed@2]
	// random-1                    2  [stall@1 stall-outage@4]
	// SIGKILL für den Absender, wenn der Broker sein Produce gespeichert hat und bevor die Antwort hinausgeht
}
