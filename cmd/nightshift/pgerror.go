//go:build !nopostgres

package main

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgErrorOf returns the SQLSTATE code and message of the PostgreSQL
// server's error in err's chain, if there is one.
func pgErrorOf(err error) (code, message string, ok bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return "", "", false
	}
	return pgErr.Code, pgErr.Message, true
}
