package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// StepArgs is the River job of a night: the next step of one of the
// night's chains, or the continuation of an interrupted step. The job
// carries no decision: whichever process takes it decides, in the
// transaction that claims the step, from the night's state in the ledger.
type StepArgs struct {
	Night int64 `json:"night"`
	// Continue is the interrupted step this job continues; such a job is
	// in its owner's queue, where no other owner's worker takes it.
	Continue int64 `json:"continue,omitempty"`
}

// Kind is the River job kind.
func (StepArgs) Kind() string { return "nightshift_step" }

// nightQueue is the queue of a night's chains, worked by every process
// that joined the night.
func nightQueue(night int64) string { return "night_" + strconv.FormatInt(night, 10) }

// ownerQueue is the queue only the processes of one owner work: the
// continuations of their interrupted steps, whose journals are on their
// machine.
func ownerQueue(owner string) string { return "owner_" + owner }

// backend is one store: its pool, its transactions and, while a night is
// worked, its River client.
type backend interface {
	pool() querier
	// forUpdate is the clause that locks the night's row for the rest of
	// a transaction ("" on SQLite, whose transactions take the write lock
	// at BEGIN).
	forUpdate() string
	inTx(ctx context.Context, fn func(q querier, ops jobOps) error) error
	// newClient makes the River client that works w's night and owner
	// queues; start starts it, stop stops it (cancel: River's
	// StopAndCancel).
	newClient(w *Worker) error
	// jobState reads a job's state through River's client (JobGet); a
	// running job marked for cancellation reads "running (cancel
	// marked)".
	jobState(ctx context.Context, id int64) (string, error)
	start(ctx context.Context) error
	stop(ctx context.Context, cancel bool) error
	close()
}

// jobOps are the River operations a ledger transaction makes, in it.
type jobOps interface {
	insert(ctx context.Context, args StepArgs, queue string) (int64, error)
	// insertN queues n jobs of args whose IDs nobody needs.
	insertN(ctx context.Context, args StepArgs, queue string, n int) error
	// cancel cancels a queued job; a running one is marked, and River
	// cancels it when it finishes or, when its process died, when its
	// rescuer finds it.
	cancel(ctx context.Context, id int64) error
	// jobState returns a job's state and args, or "" when it is gone.
	jobState(ctx context.Context, id int64) (rivertype.JobState, StepArgs, error)
	// dropQueued deletes a queue's jobs that wait to run.
	dropQueued(ctx context.Context, queue string) error
}

var errNoClient = errors.New("ledger: no River client: the night is not being worked (Work)")

// riverBackend is a backend over one River driver. TTx is the driver's
// transaction type (*sql.Tx for SQLite, pgx.Tx for PostgreSQL).
type riverBackend[TDriver riverdriver.Driver[TTx], TTx any] struct {
	l        *Ledger
	q        querier
	driver   TDriver
	dialect  dialect
	begin    func(ctx context.Context) (TTx, error)
	commit   func(ctx context.Context, tx TTx) error
	rollback func(ctx context.Context, tx TTx)
	wrap     func(tx TTx) querier
	closer   func()
	client   *river.Client[TTx]
}

func (b *riverBackend[TDriver, TTx]) pool() querier { return b.l.redacting(b.q) }

func (b *riverBackend[TDriver, TTx]) forUpdate() string { return b.dialect.forUpdate }

func (b *riverBackend[TDriver, TTx]) close() { b.closer() }

// inTx runs fn in one transaction.
func (b *riverBackend[TDriver, TTx]) inTx(ctx context.Context, fn func(q querier, ops jobOps) error) error {
	tx, err := b.begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(b.l.redacting(b.wrap(tx)), &riverOps[TDriver, TTx]{b: b, tx: tx}); err != nil {
		b.rollback(ctx, tx)
		return err
	}
	return b.commit(ctx, tx)
}

type riverOps[TDriver riverdriver.Driver[TTx], TTx any] struct {
	b  *riverBackend[TDriver, TTx]
	tx TTx
}

func (o *riverOps[TDriver, TTx]) insert(ctx context.Context, args StepArgs, queue string) (int64, error) {
	if o.b.client == nil {
		return 0, errNoClient
	}
	res, err := o.b.client.InsertTx(ctx, o.tx, args, &river.InsertOpts{Queue: queue})
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

func (o *riverOps[TDriver, TTx]) insertN(ctx context.Context, args StepArgs, queue string, n int) error {
	if o.b.client == nil {
		return errNoClient
	}
	params := make([]river.InsertManyParams, n)
	for i := range params {
		params[i] = river.InsertManyParams{Args: args, InsertOpts: &river.InsertOpts{Queue: queue}}
	}
	_, err := o.b.client.InsertManyFastTx(ctx, o.tx, params)
	return err
}

func (o *riverOps[TDriver, TTx]) cancel(ctx context.Context, id int64) error {
	if id == 0 {
		return nil
	}
	if o.b.client == nil {
		return errNoClient
	}
	_, err := o.b.client.JobCancelTx(ctx, o.tx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return nil // cleaned away already: nothing left to cancel
	}
	return err
}

func (o *riverOps[TDriver, TTx]) jobState(ctx context.Context, id int64) (rivertype.JobState, StepArgs, error) {
	if o.b.client == nil {
		return "", StepArgs{}, errNoClient
	}
	row, err := o.b.client.JobGetTx(ctx, o.tx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return "", StepArgs{}, nil
	}
	if err != nil {
		return "", StepArgs{}, err
	}
	var args StepArgs
	_ = json.Unmarshal(row.EncodedArgs, &args) // an older job's args: zero
	return row.State, args, nil
}

func (o *riverOps[TDriver, TTx]) dropQueued(ctx context.Context, queue string) error {
	if o.b.client == nil {
		return errNoClient
	}
	_, err := o.b.client.JobDeleteManyTx(ctx, o.tx, river.NewJobDeleteManyParams().Queues(queue).
		States(rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable, rivertype.JobStatePending).First(10000))
	return err
}

// stepWorker works a night's step jobs (see Worker.work).
type stepWorker[TDriver riverdriver.Driver[TTx], TTx any] struct {
	river.WorkerDefaults[StepArgs]
	b *riverBackend[TDriver, TTx]
	w *Worker
}

func (s *stepWorker[TDriver, TTx]) Work(ctx context.Context, job *river.Job[StepArgs]) error {
	return s.w.work(ctx, jobRef{id: job.ID, args: job.Args, attempt: job.Attempt}, s.b.inTx)
}

// Timeout is the step's lease: River cancels a step's context when it
// runs longer, and its rescuer hands the job of a process that died to
// another attempt once it has run that long (and not before, for
// RescueStuckJobsAfter is shorter: it only decides how soon River looks).
func (s *stepWorker[TDriver, TTx]) Timeout(*river.Job[StepArgs]) time.Duration { return s.b.l.lease }

func (b *riverBackend[TDriver, TTx]) newClient(w *Worker) error {
	workers := river.NewWorkers()
	river.AddWorker[StepArgs](workers, &stepWorker[TDriver, TTx]{b: b, w: w})
	// A chain's next step is inserted in the transaction that records the
	// step before it; River fetches it as soon as the worker's slot frees,
	// no sooner than the queue's FetchCooldown after its last fetch. River's
	// default of 100ms would cap a chain at ten steps a second; 1ms (its
	// minimum) lets the bookkeeping set the pace. The cost: while steps
	// keep coming, up to one fetch query a millisecond per queue instead
	// of ten a second; an idle queue still fetches only every
	// FetchPollInterval (1s). The client's own FetchCooldown keeps its
	// default, for it also spaces the insert notifications River sends
	// (LISTEN/NOTIFY on PostgreSQL, an outbox table on SQLite that nothing
	// reads in poll-only mode): at most one per queue every 100ms.
	queue := river.QueueConfig{MaxWorkers: b.l.concurrency, FetchCooldown: time.Millisecond}
	client, err := river.NewClient(b.driver, &river.Config{
		Queues: map[string]river.QueueConfig{
			nightQueue(w.night):   queue,
			ownerQueue(b.l.owner): queue,
		},
		Workers: workers,
		Logger:  b.l.logger,
		// No client-wide timeout: each step's is its lease (Timeout).
		JobTimeout: -1,
		// The rescuer looks at running jobs this old; the lease (the
		// worker's Timeout) still protects a live step. A step whose
		// process died and whose owner marked its job for cancellation
		// on restarting is finalised at the rescuer's next pass.
		RescueStuckJobsAfter: time.Second,
		// SQLite has no LISTEN/NOTIFY; riversqlite emulates it with an
		// outbox table polled every 50ms. One machine works a SQLite
		// ledger, and its next steps are fetched as slots free, so
		// polling for jobs (every FetchPollInterval) is enough.
		PollOnly: !b.l.postgres,
	})
	if err != nil {
		return err
	}
	b.client = client
	return nil
}

func (b *riverBackend[TDriver, TTx]) jobState(ctx context.Context, id int64) (string, error) {
	if b.client == nil {
		return "", errNoClient
	}
	row, err := b.client.JobGet(ctx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	state := string(row.State)
	var meta struct {
		CancelAttemptedAt *time.Time `json:"cancel_attempted_at"`
	}
	if json.Unmarshal(row.Metadata, &meta) == nil && meta.CancelAttemptedAt != nil && row.State == rivertype.JobStateRunning {
		state += " (cancel marked)"
	}
	return state, nil
}

func (b *riverBackend[TDriver, TTx]) start(ctx context.Context) error {
	// The client lives until stop, not until the caller's context ends.
	return b.client.Start(context.WithoutCancel(ctx))
}

func (b *riverBackend[TDriver, TTx]) stop(ctx context.Context, cancel bool) error {
	if b.client == nil {
		return nil
	}
	var err error
	if cancel {
		err = b.client.StopAndCancel(ctx)
	} else {
		err = b.client.Stop(ctx)
	}
	b.client = nil
	return err
}
