package verify

import (
	"context"
	"fmt"
	"strings"
)

// ClaimVerdict is what the claims check found a claim to be.
type ClaimVerdict string

// The claims check's verdicts on one claim.
const (
	// ClaimTrue: code measured what the answer says.
	ClaimTrue ClaimVerdict = "true"
	// ClaimFalse: code measured something else. The verification FAILs,
	// with the real figure.
	ClaimFalse ClaimVerdict = "false"
	// ClaimUnchecked: the answer says it, but code could not tell (an
	// unclear sentence, a file that cannot be found, a count with no
	// structure to count). It goes to the judge, never to a FAIL: a false
	// FAIL costs the worker a round.
	ClaimUnchecked ClaimVerdict = "unchecked"
)

// Claim is one checkable thing the final answer says about the run's
// result: a file's size or count, a file written or deleted, tests, a
// build or a linter run and passed, the answer's own count of its items.
type Claim struct {
	// Kind is what the claim is about: chars, words, lines, bytes or
	// items of a file; written or deleted for a file changed by the run;
	// tests, build or lint for a command run and passed; answer-items for
	// the answer's own count of what the task asked for.
	Kind string `json:"kind"`
	// Text is the claim as the answer words it, and Start and End its
	// byte offsets in the answer (its source span).
	Text       string `json:"text"`
	Start, End int    `json:"-"`
	// Path is the workspace file the claim is about, when there is one.
	Path string `json:"path,omitempty"`
	// Said is what the answer claims, in words: "3,847", "about 4,000",
	// "written", "passed".
	Said string `json:"said,omitempty"`
	// Measured is what code found: "3,341", "not changed by the run",
	// "exit status 1".
	Measured string `json:"measured,omitempty"`
	// Verdict is true, false or unchecked.
	Verdict ClaimVerdict `json:"verdict"`
	// Feedback, on a false claim, is what goes back to the worker:
	// "claims: you said post.md has 3,847 characters; it has 3,341".
	// Fact is the same seen from the record, for the verify event:
	// "claims: post.md has 3,341 characters, not 3,847". On an unchecked
	// claim, Fact says why code could not check it.
	Feedback string `json:"-"`
	Fact     string `json:"-"`
}

// Ran is one tool call of the run that may have changed something: a
// command (run_command) with how it ended, a write of a file tool
// (write_file, edit_file) with its path, or another tool (an MCP
// server's, delegate_task) that the claims check cannot see into and
// which may have run anything. The claims check reads a claim that tests,
// a build or a linter passed against the commands, and a claim that a
// file was written against the writes as well as the changes.
type Ran struct {
	// Tool is the tool's name: "run_command", "write_file", or the other
	// tool's.
	Tool string `json:"tool"`
	// Command is the command line of run_command, or of a cmd: check
	// that passed in the same verification (Tool "check"); empty for
	// other tools.
	Command string `json:"command,omitempty"`
	// Path is the workspace path a file tool wrote, even when the content
	// it wrote was already there (nothing changed).
	Path string `json:"path,omitempty"`
	// OK is true when the call succeeded: for a command, exit status 0.
	OK bool `json:"ok"`
	// Status is how a command ended, as its result's last line says it:
	// "exit status 1", "timed out after 2m0s".
	Status string `json:"status,omitempty"`
}

// ClaimChecker reads the final answer's claims and checks those code can
// check (package verify/claims). It never calls a model, and returns every
// claim it found, true, false and unchecked, in the order of the answer.
type ClaimChecker interface {
	Claims(ctx context.Context, in Input) []Claim
}

// claimsName is the check name of the claims check in failures, verdicts
// and the verify event.
const claimsName = "claims"

// maxUnchecked bounds the claims code could not check that are shown to
// the judge: a short list, not a second answer.
const maxUnchecked = 10

// checkClaims runs the claims check on in, with the commands of the cmd:
// rules that passed in this verification counted as run. It returns the
// claims, a failure per false claim, and the unchecked ones as the judge
// is shown them.
func (v *Verifier) checkClaims(ctx context.Context, in Input, rules []Rule, failed []bool) ([]Claim, []Failure, []string) {
	if v.Claims == nil {
		return nil, nil, nil
	}
	for i, r := range rules {
		// A cmd: rule that passed just now ran its command in this
		// workspace: a claim that the tests pass stands on it too.
		// (Not when the run's calls are unknown: one check is not all of
		// them.)
		if c, ok := r.(*cmdRule); ok && !failed[i] && in.Ran != nil {
			in.Ran = append(append([]Ran(nil), in.Ran...), Ran{Tool: "check", Command: c.command, OK: true, Status: "exit status 0"})
		}
	}
	claims := v.Claims.Claims(ctx, in)
	var fails []Failure
	var unchecked []string
	for _, c := range claims {
		switch c.Verdict {
		case ClaimFalse:
			fails = append(fails, Failure{Check: claimsName, Message: c.Feedback, Detail: c.Fact})
		case ClaimUnchecked:
			if len(unchecked) < maxUnchecked {
				unchecked = append(unchecked, uncheckedLine(c))
			}
		}
	}
	return claims, fails, unchecked
}

// uncheckedLine is how the judge is shown a claim code could not check:
// the answer's words, and why.
func uncheckedLine(c Claim) string {
	text := strings.Join(strings.Fields(c.Text), " ")
	if c.Fact == "" {
		return fmt.Sprintf("%q", text)
	}
	return fmt.Sprintf("%q (%s)", text, c.Fact)
}
