// Command labrun is the lab's command line; see package outboxlab/labrun.
package main

import "outboxlab/labrun"

func main() { labrun.Lab{Command: "go run ./cmd/labrun"}.Main() }
