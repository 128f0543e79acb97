package budget

import (
	"errors"
	"fmt"
)

// The limits a run can reach.
const (
	USD    = "usd"
	Tokens = "tokens"
)

// ErrExceeded matches every *ExceededError: a call was not made because
// it would have crossed a budget.
var ErrExceeded = errors.New("budget: the run's budget would be crossed")

// ExceededError is a call refused before it was made.
type ExceededError struct {
	// Limit is USD or Tokens.
	Limit string
	// Max is the limit, Spent what was spent before the call and Next the
	// call's estimate, in dollars or tokens.
	Max, Spent, Next float64
	// Unknown is true when the dollar limit could not be kept because a
	// cost is unknown (a model or a price missing from the model table).
	Unknown bool
}

// Error says which limit, how much was spent and what the call would
// have added.
func (e *ExceededError) Error() string {
	switch {
	case e.Unknown:
		return fmt.Sprintf("the budget of $%.4f cannot be kept: a call's cost is unknown (give the model's prices with --models FILE)", e.Max)
	case e.Limit == USD && e.Spent >= e.Max:
		return fmt.Sprintf("the budget of $%.4f is spent ($%.4f)", e.Max, e.Spent)
	case e.Limit == USD:
		return fmt.Sprintf("the next call would cross the budget of $%.4f: $%.4f spent, the call estimated at $%.4f", e.Max, e.Spent, e.Next)
	case e.Spent >= e.Max:
		return fmt.Sprintf("the budget of %.0f tokens is spent (%.0f)", e.Max, e.Spent)
	}
	return fmt.Sprintf("the next call would cross the budget of %.0f tokens: %.0f spent, the call estimated at %.0f", e.Max, e.Spent, e.Next)
}

// Is makes errors.Is(err, ErrExceeded) true.
func (e *ExceededError) Is(target error) bool { return target == ErrExceeded }
