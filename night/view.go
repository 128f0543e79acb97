package night

import (
	"context"

	"github.com/nightshift-dev/nightshift/ledger"
)

// view is the backlog as the scheduler sees it before a step.
type view struct {
	// takeable are the queued tasks the builder may take tonight, in
	// order; unscored are those still waiting for the judge.
	takeable, unscored []ledger.Task
	// wip counts the tasks in progress that the builder can still take
	// tonight: skipped and parked tasks do not hold the proposer (seed
	// 003: the cap stayed full and the idea agent stopped too).
	wip                     int
	queued, skipped, parked int
	// waiting are the parked actions no person has answered yet.
	waiting []ledger.ParkedAction
}

func (s *Scheduler) view(ctx context.Context) (*view, error) {
	tasks, err := s.l.ActiveTasks(ctx)
	if err != nil {
		return nil, err
	}
	judged := s.p.Roles[ledger.Judge] != nil
	v := &view{}
	for _, t := range tasks {
		switch t.State {
		case ledger.Parked:
			v.parked++
			continue
		case ledger.Claimed:
			v.wip++
			continue
		case ledger.Queued:
		default:
			continue
		}
		v.queued++
		if _, skip := s.st.skip[t.ID]; skip {
			v.skipped++
			continue
		}
		v.wip++
		if judged && !t.Scored && !t.Front {
			v.unscored = append(v.unscored, t)
			continue
		}
		v.takeable = append(v.takeable, t)
	}
	if v.parked > 0 {
		ps, err := s.l.ParkedActions(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.Decision == ledger.Undecided {
				v.waiting = append(v.waiting, p)
			}
		}
	}
	return v, nil
}
