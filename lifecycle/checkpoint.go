package lifecycle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
)

// The files of a run's checkpoint, in StateDir/checkpoints/<run>/.
const (
	checkpointLog = "log.jsonl" // one record per line, appended, never rewritten
	callsName     = "calls"     // the journals of the tool calls running
)

// ErrNoCheckpoint means a run has no checkpoint to resume from: it ended
// (done, failed, or recovered), or never ran in this workspace.
var ErrNoCheckpoint = errors.New("lifecycle: no checkpoint of the run")

// Checkpoint is a paused or dead run's checkpoint, as ReadCheckpoint
// reads it: what the run was and how far it got.
type Checkpoint struct {
	// Run, Task and Model are the run's ID, task and model name.
	Run   string
	Task  string
	Model string
	// Started is when the run first began.
	Started time.Time
	// Settings are the caller's Config.Settings of the first run, to
	// rebuild the Config with.
	Settings json.RawMessage
	// Spec is the run spec the run last ran with (Config.Spec); nil when
	// it had none.
	Spec *runspec.Spec
	// Budget and Timeout are the limits the run last ran with.
	Budget  budget.Limits
	Timeout time.Duration
	// State is the run's progress at its last saved step.
	State *agent.State
	// Bytes is the size of the checkpoint log.
	Bytes int64
}

// record is one line of a checkpoint log.
type record struct {
	// Op is "begin" (the run's set-up), "state" (the loop's progress:
	// the messages added since the last state record, from index From,
	// and the rest of agent.State), "call" (a tool call that may change
	// the workspace is about to run under the call journal Journal) or
	// "result" (one tool call's result).
	Op string `json:"op"`

	Run      string          `json:"run,omitempty"`
	Task     string          `json:"task,omitempty"`
	Model    string          `json:"model,omitempty"`
	Started  time.Time       `json:"started,omitzero"`
	Settings json.RawMessage `json:"settings,omitempty"`
	Spec     *runspec.Spec   `json:"spec,omitempty"`
	Budget   *budget.Limits  `json:"budget,omitempty"`
	Timeout  time.Duration   `json:"timeout,omitempty"`

	From     int           `json:"from,omitempty"`
	Messages []llm.Message `json:"messages,omitempty"`
	State    *agent.State  `json:"state,omitempty"`

	ID      string     `json:"id,omitempty"`
	Journal string     `json:"journal,omitempty"`
	Result  *llm.Block `json:"result,omitempty"`
}

// checkpointDir is run's checkpoint folder in the state folder.
func checkpointDir(state, run string) string {
	return filepath.Join(state, statedir.CheckpointsName, run)
}

// logFile is an append-only checkpoint log.
type logFile struct {
	f     *os.File
	bytes int64
	buf   bytes.Buffer
	// redact replaces the credentials in each line before it is
	// written (nil: none): the log holds the conversation, whose
	// messages (the task, the model's own text, its tool calls' inputs)
	// may carry a credential's value that no redactor saw on its way.
	// A resumed run reads [redacted] where the value was.
	redact func(string) string
}

// createLog makes run's checkpoint folder and log, with its begin record
// synced, durably; every line passes through redact (nil: none).
func createLog(dir string, begin record, redact func(string) string) (*logFile, error) {
	if err := statedir.MkdirPrivate(dir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, checkpointLog), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	l := &logFile{f: f, redact: redact}
	if err := l.append(begin, true); err != nil {
		f.Close()
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return l, syncDir(filepath.Dir(dir))
}

// openLog opens an existing log to append to it, after the last whole
// record: a torn last line (the process died while writing it) is cut
// off, so the next record starts on a line of its own. Every line passes
// through redact (nil: none).
func openLog(dir string, whole int64, redact func(string) string) (*logFile, error) {
	f, err := os.OpenFile(filepath.Join(dir, checkpointLog), os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := f.Truncate(whole); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := f.Seek(whole, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return &logFile{f: f, bytes: whole, redact: redact}, nil
}

// append writes r as one line, in one write, and syncs the log when
// durable. It returns the size of the line.
func (l *logFile) append(r record, durable bool) error {
	l.buf.Reset()
	enc := json.NewEncoder(&l.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	line := l.buf.Bytes()
	if l.redact != nil {
		// The mask holds no character JSON escapes, and every JSON
		// escaped form of a secret is one of the redactor's forms: the
		// line stays valid JSON.
		line = []byte(l.redact(string(line)))
	}
	n, err := l.f.Write(line)
	l.bytes += int64(n)
	if err == nil && durable {
		err = l.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func (l *logFile) close() error { return l.f.Close() }

// readLog reads run's checkpoint log and replays it into a Checkpoint.
// A last line cut short (no newline, or not JSON) is a record the process
// died writing: it is ignored. It also returns the results recorded
// after the last state and the call journals named since, by tool-use
// ID, and the size of the log's whole records.
func readLog(dir string) (*Checkpoint, map[string]string, int64, error) {
	data, err := os.ReadFile(filepath.Join(dir, checkpointLog))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, 0, ErrNoCheckpoint
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("checkpoint: %w", err)
	}
	ck := &Checkpoint{Bytes: int64(len(data))}
	var msgs []llm.Message
	calls := map[string]string{}
	var whole int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		end := whole + int64(len(b)) + 1
		var r record
		if end > int64(len(data)) || json.Unmarshal(b, &r) != nil {
			if end >= int64(len(data)) {
				break // the torn last record
			}
			return nil, nil, 0, fmt.Errorf("checkpoint: %s line %d is damaged", filepath.Join(dir, checkpointLog), line)
		}
		whole = end
		switch r.Op {
		case "begin":
			ck.Run, ck.Task, ck.Model, ck.Started, ck.Settings, ck.Spec = r.Run, r.Task, r.Model, r.Started, r.Settings, r.Spec
			ck.Timeout = r.Timeout
			if r.Budget != nil {
				ck.Budget = *r.Budget
			}
		case "state":
			if r.State == nil || r.From > len(msgs) {
				return nil, nil, 0, fmt.Errorf("checkpoint: %s line %d: a state that does not follow", filepath.Join(dir, checkpointLog), line)
			}
			msgs = append(msgs[:r.From], r.Messages...)
			st := *r.State
			st.Messages = msgs
			ck.State = &st
			clear(calls)
		case "call":
			calls[r.ID] = r.Journal
		case "result":
			if ck.State != nil && ck.State.Pending != nil && r.Result != nil {
				ck.State.Pending.Results = append(ck.State.Pending.Results, *r.Result)
			}
		}
	}
	if ck.Run == "" {
		return nil, nil, 0, fmt.Errorf("checkpoint: %s has no begin record", filepath.Join(dir, checkpointLog))
	}
	if ck.State == nil {
		// It died before its first step was saved: it starts again.
		ck.State = &agent.State{Messages: []llm.Message{llm.UserText(ck.Task)}}
	}
	return ck, calls, whole, nil
}

// syncDir makes a folder's entries durable.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
