// Command reference is the lab's reference relay as a program of its own:
// it knows the contract (verify/CONTRACT.md) and nothing else of the lab.
// Build it and grade it:
//
//	go build -o outbox-relay ./verify/relays/reference
//	go run ./cmd/labrun-real verify --relay ./outbox-relay
package main

import "outboxlab/real/verify/relays/relay"

func main() { relay.Main(nil) }
