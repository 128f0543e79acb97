// Package models is nightshift's one table of models: for each provider and
// model, the roles it is the default for, its context window, its prices
// per million tokens (input, output, cache write, cache read) and where
// each figure comes from and when it was read.
//
// The table is embedded (models.yaml beside this file, compiled into
// rows.go as static data by TestTheRowsAreModelsYAML) and can be
// overridden or extended by a file of the same shape: Load reads one and
// Merge lays it over the embedded table. A figure the table does not know
// stays unknown: a model with no row, or a row missing a price that a
// call used, costs Unknown, never zero.
//
//	t := models.Default()
//	if extra, err := models.Load("models.yaml"); err == nil {
//		t = t.Merge(extra)
//	}
//	name := t.DefaultModel("anthropic", models.Worker)
//	c := t.Cost("anthropic", name, resp.Usage) // one call's cost
//	fmt.Println(c)                              // "$0.0123" or "unknown"
package models
