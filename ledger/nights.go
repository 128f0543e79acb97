package ledger

import (
	"context"
	"fmt"
	"time"
)

// StartNight opens the night called name, or returns it when it exists
// already: a restarted process, or a second machine, joins the same night.
func (l *Ledger) StartNight(ctx context.Context, name string, start, end, at time.Time) (Night, error) {
	if n, err := l.NightByName(ctx, name); err == nil {
		return n, nil
	}
	q := l.b.pool()
	_, err := q.exec(ctx, "INSERT INTO ns_nights (name, window_start, window_end, started_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
		name, ms(start), ms(end), ms(at))
	if err != nil {
		return Night{}, fmt.Errorf("ledger: start night: %w", err)
	}
	return l.NightByName(ctx, name)
}

// EndNight records how the night ended. The first end wins: when several
// processes share a night, the first to see its end writes it. A night
// being worked ends through its Handler (Plan.End), which also drops the
// night's queued jobs.
func (l *Ledger) EndNight(ctx context.Context, id int64, kind EndKind, reason string, at time.Time) (Night, error) {
	if err := endNightRow(ctx, l.b.pool(), id, End{Kind: kind, Reason: reason, At: at}); err != nil {
		return Night{}, err
	}
	return l.Night(ctx, id)
}

func endNightRow(ctx context.Context, q querier, id int64, e End) error {
	_, err := q.exec(ctx, "UPDATE ns_nights SET ended_at = ?, end_kind = ?, end_reason = ? WHERE id = ? AND ended_at = 0",
		max(ms(e.At), 1), e.Kind, e.Reason, id)
	return err
}

// Resume reopens a night that a system-scope failure stopped, once a
// person has dealt with its cause (`nightshift night` again in the same
// window): the stop is kept in the night's Stops, the failures that
// stopped it no longer stop it, and the processes that join it next bring
// their step chains again. Any other night is returned as it is.
func (l *Ledger) Resume(ctx context.Context, id int64, at time.Time) (Night, error) {
	err := l.b.inTx(ctx, func(q querier, _ jobOps) error {
		n, err := lockNight(ctx, q, l.b.forUpdate(), id)
		if err != nil || n.End != SystemStopped {
			return err
		}
		if _, err := q.exec(ctx, "INSERT INTO ns_stops (night_id, stopped_at, end_kind, end_reason, resumed_at, owner) VALUES (?, ?, ?, ?, ?, ?)",
			id, ms(n.EndedAt), n.End, n.Reason, ms(at), l.owner); err != nil {
			return err
		}
		_, err = q.exec(ctx, `UPDATE ns_nights SET ended_at = 0, end_kind = '', end_reason = '', epoch = epoch + 1,
			stop_mark = (SELECT coalesce(max(id), 0) FROM ns_failures WHERE night_id = ?) WHERE id = ?`, id, id)
		return err
	})
	if err != nil {
		return Night{}, fmt.Errorf("ledger: resume night %d: %w", id, err)
	}
	return l.Night(ctx, id)
}

const nightCols = `id, name, window_start, window_end, started_at, ended_at, end_kind, end_reason, proposer_steps, judge_steps, builder_steps, epoch, stop_mark, idle_chains`

func scanNight(r rows) (Night, error) {
	var n Night
	var ws, we, st, en int64
	var p, j, b int
	err := r.Scan(&n.ID, &n.Name, &ws, &we, &st, &en, &n.End, &n.Reason, &p, &j, &b, &n.Epoch, &n.stopMark, &n.idleChains)
	n.WindowStart, n.WindowEnd, n.StartedAt, n.EndedAt = fromMS(ws), fromMS(we), fromMS(st), fromMS(en)
	n.Reserved = map[Role]int{Proposer: p, Judge: j, Builder: b}
	return n, err
}

// lockNight reads a night's row in a transaction and, on PostgreSQL,
// locks it until the transaction ends: every decision about a night is
// made holding it, so that processes sharing the night take their
// decisions one after another, each on what the others committed.
var lockNightSQL = hotSQL("SELECT " + nightCols + " FROM ns_nights WHERE id = ?")

func lockNight(ctx context.Context, q querier, forUpdate string, id int64) (Night, error) {
	r, err := q.query(ctx, lockNightSQL+forUpdate, id)
	ns, err := collect(r, err, scanNight)
	if err != nil {
		return Night{}, err
	}
	if len(ns) == 0 {
		return Night{}, fmt.Errorf("night %d: %w", id, ErrNotFound)
	}
	return ns[0], nil
}

func (l *Ledger) oneNight(ctx context.Context, where string, arg any) (Night, error) {
	q := l.b.pool()
	r, err := q.query(ctx, "SELECT "+nightCols+" FROM ns_nights WHERE "+where, arg)
	ns, err := collect(r, err, scanNight)
	if err != nil {
		return Night{}, err
	}
	if len(ns) == 0 {
		return Night{}, fmt.Errorf("night %v: %w", arg, ErrNotFound)
	}
	if err := withStops(ctx, q, ns); err != nil {
		return Night{}, err
	}
	if err := withSpend(ctx, q, ns); err != nil {
		return Night{}, err
	}
	return ns[0], nil
}

// withStops fills in the nights' Stops.
func withStops(ctx context.Context, q querier, ns []Night) error {
	byID := map[int64]*Night{}
	for i := range ns {
		byID[ns[i].ID] = &ns[i]
	}
	r, err := q.query(ctx, "SELECT night_id, stopped_at, end_kind, end_reason, resumed_at, owner FROM ns_stops ORDER BY id")
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		var id, at, res int64
		var s Stop
		if err := r.Scan(&id, &at, &s.End, &s.Reason, &res, &s.Owner); err != nil {
			return err
		}
		s.At, s.ResumedAt = fromMS(at), fromMS(res)
		if n := byID[id]; n != nil {
			n.Stops = append(n.Stops, s)
		}
	}
	return r.Err()
}

// Night returns one night, or ErrNotFound.
func (l *Ledger) Night(ctx context.Context, id int64) (Night, error) {
	return l.oneNight(ctx, "id = ?", id)
}

// NightByName returns the night called name, or ErrNotFound.
func (l *Ledger) NightByName(ctx context.Context, name string) (Night, error) {
	return l.oneNight(ctx, "name = ?", name)
}

// Nights returns every night, oldest first.
func (l *Ledger) Nights(ctx context.Context) ([]Night, error) {
	q := l.b.pool()
	r, err := q.query(ctx, "SELECT "+nightCols+" FROM ns_nights ORDER BY window_start, id")
	ns, err := collect(r, err, scanNight)
	if err != nil {
		return nil, err
	}
	if err := withStops(ctx, q, ns); err != nil {
		return nil, err
	}
	return ns, withSpend(ctx, q, ns)
}

// OpenNight returns the latest night that has not ended, or ErrNotFound.
func (l *Ledger) OpenNight(ctx context.Context) (Night, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+nightCols+" FROM ns_nights WHERE ended_at = 0 ORDER BY id DESC")
	ns, err := collect(r, err, scanNight)
	if err != nil {
		return Night{}, err
	}
	if len(ns) == 0 {
		return Night{}, fmt.Errorf("open night: %w", ErrNotFound)
	}
	return ns[0], nil
}

// addNote writes a note unless the night has the same one already.
func addNote(ctx context.Context, q querier, n Note) (bool, error) {
	c, err := q.exec(ctx, `INSERT INTO ns_notes (night_id, at, kind, text) SELECT ?, ?, ?, ?
		WHERE NOT EXISTS (SELECT 1 FROM ns_notes WHERE night_id = ? AND kind = ? AND text = ?)`,
		n.Night, ms(n.At), n.Kind, n.Text, n.Night, n.Kind, n.Text)
	return c > 0, err
}

// AddNote writes a line for the morning reader, once per night: the same
// note again is not repeated. It reports whether it was new.
func (l *Ledger) AddNote(ctx context.Context, n Note) (bool, error) {
	return addNote(ctx, l.b.pool(), n)
}

// Notes returns the night's notes in order.
func (l *Ledger) Notes(ctx context.Context, night int64) ([]Note, error) {
	r, err := l.b.pool().query(ctx, "SELECT night_id, at, kind, text FROM ns_notes WHERE night_id = ? ORDER BY id", night)
	return collect(r, err, func(r rows) (Note, error) {
		var n Note
		var at int64
		err := r.Scan(&n.Night, &at, &n.Kind, &n.Text)
		n.At = fromMS(at)
		return n, err
	})
}

// NightTokens returns the tokens tonight's recorded steps spent, in all
// and per worker (NightSpend has the cache's share and the cost).
func (l *Ledger) NightTokens(ctx context.Context, night int64) (Tokens, error) {
	sp, err := runningSpend(ctx, l.b.pool(), night)
	return sp.tokens(), err
}
