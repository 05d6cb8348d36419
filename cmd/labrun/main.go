// Command labrun is the lab's command line; see package outboxlab/cli.
package main

import "outboxlab/lab/cli"

func main() { cli.Lab{Command: "go run ./cmd/labrun"}.Main() }
