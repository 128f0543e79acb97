// Package ledgertest helps tests that run the ledger on PostgreSQL: each
// gets a fresh database of its own on the server NIGHTSHIFT_TEST_PG names,
// dropped when the test ends.
package ledgertest
