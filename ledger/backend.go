package ledger

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
)

// StepArgs is the River job of one step: the job carries only the step's
// ID; the step row says the rest.
type StepArgs struct {
	Step int64 `json:"step"`
}

// Kind is the River job kind.
func (StepArgs) Kind() string { return "nightshift_step" }

// txOps are the River operations a ledger transaction may need.
type txOps interface {
	cancelJob(ctx context.Context, id int64) error
}

// backend is one store: its pool, its transactions and its River client.
type backend interface {
	pool() querier
	inTx(ctx context.Context, fn func(q querier, ops txOps) error) error
	// insertStep queues a step's job in its own transaction, after the
	// claim committed (see RunStep).
	insertStep(ctx context.Context, args StepArgs) (int64, error)
	start(ctx context.Context) error
	stop(ctx context.Context) error
	close()
}

// riverBackend is a backend over one River driver. TTx is the driver's
// transaction type (*sql.Tx for SQLite, pgx.Tx for PostgreSQL).
type riverBackend[TDriver riverdriver.Driver[TTx], TTx any] struct {
	l        *Ledger
	client   *river.Client[TTx]
	q        querier
	begin    func(ctx context.Context) (TTx, error)
	commit   func(ctx context.Context, tx TTx) error
	rollback func(ctx context.Context, tx TTx)
	wrap     func(tx TTx) querier
	closer   func()
}

func (b *riverBackend[TDriver, TTx]) pool() querier { return b.q }

func (b *riverBackend[TDriver, TTx]) start(ctx context.Context) error { return b.client.Start(ctx) }

func (b *riverBackend[TDriver, TTx]) stop(ctx context.Context) error { return b.client.Stop(ctx) }

func (b *riverBackend[TDriver, TTx]) close() { b.closer() }

type ops[TTx any] struct {
	client *river.Client[TTx]
	tx     TTx
}

func (b *riverBackend[TDriver, TTx]) insertStep(ctx context.Context, args StepArgs) (int64, error) {
	// One attempt: a step that dies midway is restored and retried by the
	// night's recovery, never re-run blindly by River.
	res, err := b.client.Insert(ctx, args, &river.InsertOpts{Queue: b.l.owner, MaxAttempts: 1})
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

func (o ops[TTx]) cancelJob(ctx context.Context, id int64) error {
	_, err := o.client.JobCancelTx(ctx, o.tx, id)
	return err
}

func (b *riverBackend[TDriver, TTx]) inTx(ctx context.Context, fn func(q querier, ops txOps) error) error {
	tx, err := b.begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(b.wrap(tx), ops[TTx]{client: b.client, tx: tx}); err != nil {
		b.rollback(ctx, tx)
		return err
	}
	return b.commit(ctx, tx)
}

// stepWorker works step jobs: it runs the step's function, then records
// the result and completes the job in one transaction.
type stepWorker[TDriver riverdriver.Driver[TTx], TTx any] struct {
	river.WorkerDefaults[StepArgs]
	b *riverBackend[TDriver, TTx]
}

func (w *stepWorker[TDriver, TTx]) Work(ctx context.Context, job *river.Job[StepArgs]) error {
	l := w.b.l
	r := l.takeRun(job.Args.Step)
	if r == nil {
		// Nobody waits for it: the process that claimed it is gone. The
		// night's recovery restores and retries the step; running it here
		// would apply its effects a second time.
		return river.JobCancel(fmt.Errorf("step %d has no waiting night", job.Args.Step))
	}
	r.step.Job = job.ID
	res := r.fn(ctx, r.step)
	var rec Step
	tx, err := w.b.begin(ctx)
	if err == nil {
		q := w.b.wrap(tx)
		rec, err = l.record(ctx, q, r.step, res)
		if err != nil {
			err = fmt.Errorf("ledger: record step %d: %w", r.step.ID, err)
		} else if _, err = river.JobCompleteTx[TDriver](ctx, tx, job); err != nil {
			err = fmt.Errorf("ledger: complete step %d's job: %w", r.step.ID, err)
		}
		if err != nil {
			w.b.rollback(ctx, tx)
		} else if err = w.b.commit(ctx, tx); err != nil {
			err = fmt.Errorf("ledger: commit step %d: %w", r.step.ID, err)
		}
	} else {
		err = fmt.Errorf("ledger: begin step %d's record: %w", r.step.ID, err)
	}
	r.done <- stepDone{step: rec, err: err}
	if err != nil {
		return river.JobCancel(err)
	}
	return nil
}
