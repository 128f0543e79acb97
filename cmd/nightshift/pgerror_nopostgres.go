//go:build nopostgres

package main

// pgErrorOf: a build without the PostgreSQL store meets no server's error.
func pgErrorOf(error) (code, message string, ok bool) { return "", "", false }
