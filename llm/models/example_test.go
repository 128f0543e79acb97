package models_test

import (
	"fmt"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// A table laid over the embedded one prices a local model at zero and
// makes it the default worker; a model nobody priced costs "unknown".
func Example() {
	local, err := models.Parse([]byte(`
models:
  - {provider: openai, model: qwen3, roles: [worker], context_window: 32768, price: {input: 0, output: 0}}
`))
	if err != nil {
		panic(err)
	}
	t := models.Default().Merge(local)
	name := t.DefaultModel("openai", models.Worker)
	u := llm.Usage{InputTokens: 12000, OutputTokens: 800}
	fmt.Println(name, t.Cost("openai", name, u))
	fmt.Println(t.Cost("openai", "nobody-priced-this", u))
	// Output:
	// qwen3 $0.0000
	// unknown
}
