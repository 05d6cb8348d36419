// Command float-amounts is the reference consumer with one change: it
// reads an amount as a floating-point number and multiplies it into minor
// units, which truncates 19.99 to 1998 cents. verify: MISMATCH in every
// round (three-instances first).
package main

import (
	"fmt"
	"math"
	"strconv"

	"outboxlab/real/verify/consumers/consumer"
)

func main() {
	consumer.Main(func(c *consumer.Consumer) {
		// MISTAKE: money through a float.
		c.ParseAmount = func(amount, currency string) (consumer.Money, error) {
			digits, ok := consumer.Decimals[currency]
			if !ok {
				return consumer.Money{}, fmt.Errorf("currency %q: want EUR, USD or JPY", currency)
			}
			f, err := strconv.ParseFloat(amount, 64)
			if err != nil || f <= 0 {
				return consumer.Money{}, fmt.Errorf("amount %q: want a positive number", amount)
			}
			return consumer.Money{Minor: int64(f * math.Pow10(digits)), Currency: currency}, nil
		}
	})
}
