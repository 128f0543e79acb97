package night

import (
	"context"

	"github.com/nightshift-dev/nightshift/ledger"
)

// worker names a role with one of its models.
type worker struct {
	role  ledger.Role
	model string
}

func (w worker) String() string { return string(w.role) + "/" + w.model }

// state is what the scheduler knows about tonight. It is rebuilt from the
// ledger when a night is resumed, and kept up to date by each step.
type state struct {
	// out holds the workers that sit out the rest of the night, with why.
	out map[worker]string
	// skip is tonight's skip list of tasks.
	skip map[int64]string
	// failedOn lists the tasks each worker failed a step on tonight.
	failedOn map[worker][]int64
	// tokens spent tonight per worker, and in all.
	tokens map[worker]int64
	total  int64
	// finished counts finished steps (any end but interrupted) per role.
	finished map[ledger.Role]int
	// noted holds the notes already written, so each is written once.
	noted map[string]bool
	// seen is the ID of the last failure taken into account.
	seen int64
	// stop is set by a night- or system-scope failure.
	stop    ledger.Scope
	stopWhy string
}

func newState() *state {
	return &state{
		out: map[worker]string{}, skip: map[int64]string{}, failedOn: map[worker][]int64{},
		tokens: map[worker]int64{}, finished: map[ledger.Role]int{}, noted: map[string]bool{},
	}
}

// load rebuilds the state of a night that already ran for a while (a
// restart, or a second machine joining).
func (s *state) load(ctx context.Context, l *ledger.Ledger, night int64) error {
	steps, err := l.Steps(ctx, night)
	if err != nil {
		return err
	}
	for _, st := range steps {
		w := worker{st.Role, st.Worker}
		s.tokens[w] += st.Tokens
		s.total += st.Tokens
		if st.State != ledger.Running && st.State != ledger.Interrupted {
			s.finished[st.Role]++
		}
		if st.State == ledger.StepFailed && st.Task != 0 {
			s.failedOn[w] = append(s.failedOn[w], st.Task)
		}
	}
	if err := s.catchUp(ctx, l, night); err != nil {
		return err
	}
	notes, err := l.Notes(ctx, night)
	if err != nil {
		return err
	}
	for _, n := range notes {
		s.noted[n.Kind+": "+n.Text] = true
	}
	return nil
}

// catchUp takes into account the failures recorded since the last look,
// whoever recorded them: a person (task fail), the night's parking deadline,
// another process sharing the night, or this night's own steps (applying
// one twice changes nothing). A restarted night and a running one thus see
// the same skip list and the same workers out.
func (s *state) catchUp(ctx context.Context, l *ledger.Ledger, night int64) error {
	fs, err := l.FailuresAfter(ctx, night, s.seen)
	if err != nil {
		return err
	}
	for _, f := range fs {
		s.apply(f)
		s.seen = f.ID
	}
	return nil
}

// apply takes one recorded failure into account.
func (s *state) apply(f ledger.Failure) {
	switch f.Scope {
	case ledger.TaskScope:
		if f.Task != 0 {
			s.skip[f.Task] = f.Reason
		}
	case ledger.WorkerScope:
		s.out[worker{f.Role, f.Worker}] = f.Reason
	case ledger.NightScope, ledger.SystemScope:
		if s.stop != ledger.SystemScope {
			s.stop, s.stopWhy = f.Scope, f.Reason
		}
	}
}
