package night

import (
	"errors"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
)

// classify names the kind of failure an attempt was, or "" when it
// succeeded or parked. Only the error's class is read, never its text.
func classify(a Attempt) Kind {
	switch a.Outcome {
	case agent.Done:
		if strings.TrimSpace(a.Answer) == "" {
			return EmptyAnswer
		}
		return ""
	case agent.Parked:
		if a.Park != nil {
			return ""
		}
		return FailedStep
	case agent.Usage:
		return ConfigError
	case agent.Budget:
		// The attempt's own budget, never the worker's night budget
		// (which the scheduler charges by its own count).
		return AttemptBudget
	case agent.Timeout:
		return AttemptTimeout
	case agent.Unavailable:
		return WaitingForProvider
	case agent.StepLimit:
		if errors.Is(a.Err, agent.ErrLoop) {
			return Loop
		}
	case agent.APIFailure:
		return classifyErr(a.Err)
	case agent.Failed:
		if a.Calls == 0 {
			// The harness failed before the model saw the task: the
			// workspace, the journal, the ledger's read. That is the
			// worker's set-up, seed 003's "failure before any idea was
			// chosen".
			return NoTask
		}
	}
	if slices.Contains(a.Checks, "not-empty") || (a.Outcome == agent.Unverified && strings.TrimSpace(a.Answer) == "") {
		return EmptyAnswer
	}
	return FailedStep
}

// classifyErr names the kind of a provider failure by its class.
func classifyErr(err error) Kind {
	c := llm.ClassOf(err)
	switch {
	case c == llm.Quota:
		return QuotaRefused
	case c == llm.Auth:
		return AuthFailed
	case c.Retryable():
		return APIDown
	}
	// A rejected request (bad-request, malformed reply) is about what was
	// sent: the task's content, the smallest thing known to be broken.
	return FailedStep
}
