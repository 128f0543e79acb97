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
	conflict := " ON CONFLICT (name) DO NOTHING"
	_, err := q.exec(ctx, "INSERT INTO ns_nights (name, window_start, window_end, started_at) VALUES (?, ?, ?, ?)"+conflict,
		name, ms(start), ms(end), ms(at))
	if err != nil {
		return Night{}, fmt.Errorf("ledger: start night: %w", err)
	}
	return l.NightByName(ctx, name)
}

// EndNight records how the night ended. The first call wins: when several
// processes share a night, the first to see its end writes it.
func (l *Ledger) EndNight(ctx context.Context, id int64, kind EndKind, reason string, at time.Time) (Night, error) {
	if _, err := l.b.pool().exec(ctx, "UPDATE ns_nights SET ended_at = ?, end_kind = ?, end_reason = ? WHERE id = ? AND ended_at = 0",
		max(ms(at), 1), kind, reason, id); err != nil {
		return Night{}, err
	}
	return l.Night(ctx, id)
}

const nightCols = `id, name, window_start, window_end, started_at, ended_at, end_kind, end_reason, proposer_steps, judge_steps, builder_steps`

func scanNight(r rows) (Night, error) {
	var n Night
	var ws, we, st, en int64
	var p, j, b int
	err := r.Scan(&n.ID, &n.Name, &ws, &we, &st, &en, &n.End, &n.Reason, &p, &j, &b)
	n.WindowStart, n.WindowEnd, n.StartedAt, n.EndedAt = fromMS(ws), fromMS(we), fromMS(st), fromMS(en)
	n.Reserved = map[Role]int{Proposer: p, Judge: j, Builder: b}
	return n, err
}

func (l *Ledger) oneNight(ctx context.Context, where string, arg any) (Night, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+nightCols+" FROM ns_nights WHERE "+where, arg)
	ns, err := collect(r, err, scanNight)
	if err != nil {
		return Night{}, err
	}
	if len(ns) == 0 {
		return Night{}, fmt.Errorf("night %v: %w", arg, ErrNotFound)
	}
	return ns[0], nil
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
	r, err := l.b.pool().query(ctx, "SELECT "+nightCols+" FROM ns_nights ORDER BY window_start, id")
	return collect(r, err, scanNight)
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

// AddNote writes a line for the morning reader.
func (l *Ledger) AddNote(ctx context.Context, n Note) error {
	_, err := l.b.pool().exec(ctx, "INSERT INTO ns_notes (night_id, at, kind, text) VALUES (?, ?, ?, ?)", n.Night, ms(n.At), n.Kind, n.Text)
	return err
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
