package models

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Cost is an amount in US dollars that may be unknown. The zero value is
// unknown, so a cost nobody computed can never pass for free.
type Cost struct {
	usd   float64
	known bool
}

// Unknown is the cost of a call the table cannot price.
var Unknown = Cost{}

// USD returns a known cost of v dollars.
func USD(v float64) Cost { return Cost{usd: v, known: true} }

// Known reports whether the cost is known.
func (c Cost) Known() bool { return c.known }

// USD returns the amount in dollars and whether it is known.
func (c Cost) USD() (float64, bool) { return c.usd, c.known }

// Equal reports whether two costs are the same: both unknown, or both
// known and the same amount. (go-cmp compares costs with it.)
func (c Cost) Equal(d Cost) bool { return c == d }

// Add returns the sum of two costs: unknown when either is, since a total
// with an unknown part is not known either.
func (c Cost) Add(d Cost) Cost {
	if !c.known || !d.known {
		return Unknown
	}
	return USD(c.usd + d.usd)
}

// String renders the cost as "$0.0123" (four decimals, enough for one
// call) or "unknown".
func (c Cost) String() string {
	if !c.known {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", c.usd)
}

// MarshalJSON encodes a known cost as a number of dollars and an unknown
// one as null.
func (c Cost) MarshalJSON() ([]byte, error) {
	if !c.known {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, c.usd, 'f', -1, 64), nil
}

// UnmarshalJSON reads a number of dollars, or null for unknown.
func (c *Cost) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = Unknown
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("models: cost: %w", err)
	}
	*c = USD(v)
	return nil
}
