package agent_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/workspace"
)

// A run on the scripted model: a 429 retried after its wait, a file
// written, and a verified finish.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	root, _ := workspace.Open(dir)
	defer root.Close()
	tools, _ := tool.NewSet(fs.Tools(root)...)
	sc, _ := scripted.Parse([]byte(`
turns:
  - attempts:
      - {status: 429, headers: {retry-after-ms: "1"}}
      - tool_calls: [{name: write_file, input: {path: hello.txt, content: "hello\n"}}]
  - text: wrote hello.txt
`))
	res := agent.Run(context.Background(), agent.Config{
		Model: scripted.New(sc, scripted.Config{}),
		Tools: tools,
		Root:  root,
		Retry: retry.Policy{Retries: 3, Backoff: time.Millisecond},
	}, "write hello.txt")
	fmt.Println(res.Outcome, res.Steps, res.Answer)
	// Output: done 2 wrote hello.txt
}
