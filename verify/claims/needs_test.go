package claims

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/verify"
)

// TestEveryPatternsHintHolds proves each Needs hint of the check's
// patterns from the pattern itself: a wrong hint would hide a claim.
func TestEveryPatternsHintHolds(t *testing.T) {
	if err := lazyregexp.CheckNeeds(); err != nil {
		t.Fatal(err)
	}
}

// TestAnAnswerWithoutFiguresQuotesOrNamesCompilesNoPatternForThem checks
// that a short answer such as a run that found nothing to do gives costs
// only the patterns that read its sentences: the figures', the quoted
// names' and the bare file names' are not compiled for it (they were a
// fifth of such a run's peak memory).
func TestAnAnswerWithoutFiguresQuotesOrNamesCompilesNoPatternForThem(t *testing.T) {
	// In a process of its own: the other tests compile every pattern.
	if os.Getenv(freshEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
		cmd.Env = append(os.Environ(), freshEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	c := New(Config{})
	in := verify.Input{Task: "tidy the notes", Answer: "Nothing to do.", Dir: t.TempDir()}
	c.Claims(context.Background(), in) // the sentence patterns, compiled once
	for _, a := range []string{"Nothing to do.", "There was nothing to change here.", "All good; no changes needed."} {
		in.Answer = a
		c.Claims(context.Background(), in)
	}
	for _, r := range []*lazyregexp.Regexp{quotedRe, bareRe, digitsRe} {
		if r.Ready() {
			t.Errorf("%s was compiled for answers that hold none of its needs", r)
		}
	}
}

// freshEnv runs a test in a process where no pattern is compiled yet.
const freshEnv = "NIGHTSHIFT_TEST_CLAIMS_FRESH"
