package ledger

import "context"

// redactQ passes every string argument of every statement through
// redact before the database sees it: the ledger's one boundary with the
// disk, so that a credential's value that reached a step's reason or
// answer, a failure, a note, a task note, a parked action or a task is
// never stored, whichever statement writes it. A WHERE argument is
// redacted the same way as the value it is compared with.
type redactQ struct {
	q      querier
	redact func(string) string
}

func (r redactQ) args(args []any) []any {
	var out []any
	for i, a := range args {
		s, ok := a.(string)
		if !ok {
			continue
		}
		if red := r.redact(s); red != s {
			if out == nil {
				out = append([]any(nil), args...)
			}
			out[i] = red
		}
	}
	if out == nil {
		return args
	}
	return out
}

func (r redactQ) exec(ctx context.Context, q string, args ...any) (int64, error) {
	return r.q.exec(ctx, q, r.args(args)...)
}

func (r redactQ) query(ctx context.Context, q string, args ...any) (rows, error) {
	return r.q.query(ctx, q, r.args(args)...)
}

func (r redactQ) queryRow(ctx context.Context, q string, args ...any) row {
	return r.q.queryRow(ctx, q, r.args(args)...)
}

// redacting returns q behind the ledger's redaction, or q itself when
// there is none.
func (l *Ledger) redacting(q querier) querier {
	if l.redact == nil {
		return q
	}
	return redactQ{q, l.redact}
}
