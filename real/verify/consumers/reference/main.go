// Command reference is the lab's reference consumer as a program of its
// own: it knows the contract (verify/CONSUMERS.md) and nothing else of the
// lab. Build it and grade it:
//
//	go build -o billing-consumer ./verify/consumers/reference
//	go run ./cmd/labrun-real verify --consumer ./billing-consumer
package main

import "outboxlab/real/verify/consumers/consumer"

func main() { consumer.Main(nil) }
