package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/nightshift-dev/nightshift/agent"
)

// ledgerOpenError explains a PostgreSQL ledger that could not be opened,
// naming the server (never the URL: it may carry a password) and what to
// check. A server that cannot be reached is no mistake of the input
// (exit 1, as a disk error: DESIGN.md's table has no other row for it); a
// server that refuses the user or knows no such database is a --db to fix
// (exit 2). Anything else is returned as it is.
func ledgerOpenError(dsn string, err error) error {
	server := pgServer(dsn)
	if code, message, ok := pgErrorOf(err); ok {
		switch code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return usagef("the ledger's PostgreSQL server %s (--db or $NIGHTSHIFT_DB) refused the user: %s; check the user and password in the URL", server, message)
		case "3D000": // invalid_catalog_name
			return usagef("the ledger's PostgreSQL server %s (--db or $NIGHTSHIFT_DB) has no such database: %s; create it (createdb) or name another in the URL", server, message)
		}
		return err
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var why string
	switch {
	case errors.As(err, &dnsErr):
		why = "no such host"
		if !dnsErr.IsNotFound {
			why = dnsErr.Err
		}
	case errors.As(err, &opErr):
		why = opErr.Err.Error()
	default:
		return err
	}
	return &exitError{code: exitFor(agent.Failed), err: fmt.Errorf(
		"the ledger's PostgreSQL server %s (--db or $NIGHTSHIFT_DB) cannot be reached (%s): check that the server is running and accepts connections there, and the URL's host and port", server, why)}
}

// pgServer is a PostgreSQL URL's HOST:PORT, without the user and password.
func pgServer(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		return "localhost:5432"
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "5432")
	}
	return u.Host
}
