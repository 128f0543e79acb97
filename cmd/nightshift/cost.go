package main

import (
	"fmt"
	"time"

	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// The defaults of --stall and --call-timeout (docs/budgets.md).
const (
	defaultStall       = 2 * time.Minute
	defaultCallTimeout = 10 * time.Minute
)

// modelTable is the embedded model table with the --models file (or a
// task file's models_file) laid over it.
func modelTable(file string) (*models.Table, error) {
	t := models.Default()
	if file == "" {
		return t, nil
	}
	if err := checkInputFile("--models (task file: models_file)", file, "the format is in docs/budgets.md"); err != nil {
		return nil, err
	}
	over, err := models.Load(file)
	if err != nil {
		return nil, usagef("--models: %v", err)
	}
	return t.Merge(over), nil
}

// priceName is the model name the table knows a call by: the name sent,
// or, when none is, the provider's default worker model (the one the
// provider then answers with).
func priceName(t *models.Table, provider, name string) string {
	if name != "" {
		return name
	}
	return t.DefaultModel(provider, models.Worker)
}

// pricer prices the calls of provider's model name by the table.
func pricer(t *models.Table, provider, name string) budget.Pricer {
	name = priceName(t, provider, name)
	return func(u llm.Usage) models.Cost { return t.Cost(provider, name, u) }
}

// checkPriced refuses a dollar budget for a model whose prices the table
// does not know: such a budget could not be kept, and finding out at the
// first call would be too late to say what to do.
func checkPriced(t *models.Table, provider, name, what string) error {
	name = priceName(t, provider, name)
	m, ok := t.Lookup(provider, name)
	if !ok || m.Price == nil || m.Price.Input == nil || m.Price.Output == nil {
		return usagef("--budget-usd: the model table has no price for %s %s (%s): give its prices in a --models FILE (docs/budgets.md), or set a --budget-tokens instead", provider, name, what)
	}
	return nil
}

// costLine renders a cost for the closing line.
func costLine(c models.Cost) string {
	if usd, ok := c.USD(); ok {
		return fmt.Sprintf("$%.4f", usd)
	}
	return "unknown (no price in the model table)"
}
