// Command courselab is how a course builds its own labrun: the lab's
// commands, with the course's variants graded, listed and played next to
// the lab's own, and every replay command printed naming this program.
//
//	go run ./examples/courselab matrix --variant eager-relay
package main

import (
	"outboxlab/examples/courselab/course"
	"outboxlab/lab/cli"
	"outboxlab/variant"
)

func main() {
	cli.Lab{
		Command:  "go run ./examples/courselab",
		Variants: []variant.Variant{course.EagerRelay()},
	}.Main()
}
