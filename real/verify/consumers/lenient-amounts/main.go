// Command lenient-amounts is the reference consumer with one change: it
// reads an amount with any number of digits after the point, and a
// currency it does not know as one of two digits, as if every producer
// wrote amounts as the contract's table does. "12.345" EUR becomes
// 12345 cents, "10.00" GBP 1000 minor units of a currency billing does
// not have: bills nobody can explain, where the contract says dead
// letter. verify: PHANTOM at poison (the orders of those records were
// never committed).
package main

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: the digits as they come, in any currency.
		c.ParseAmount = func(amount, currency string) (consumer.Money, error) {
			minor, err := strconv.ParseInt(strings.Replace(amount, ".", "", 1), 10, 64)
			if err != nil || minor <= 0 {
				return consumer.Money{}, fmt.Errorf("amount %q: want a positive amount of digits", amount)
			}
			return consumer.Money{Minor: minor, Currency: currency}, nil
		}
	})
}
