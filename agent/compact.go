package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// Compaction: a long run's history outgrows the model's context window,
// and a call that sends it anyway fails as a bad request ("autocompact
// never fires in long autonomous runs" is a top complaint about headless
// agents). Before a worker call whose estimated prompt would pass
// Config.CompactAt of the window, the older turns are replaced by a
// summary the model writes in one call of its own, and the latest turns
// are kept as they were. The judge never sees the summary: it is shown
// the task, the answer and the files, never the conversation.

// DefaultCompactAt is the share of the context window a prompt may reach
// before the history is compacted (Config.CompactAt).
const DefaultCompactAt = 0.8

// keepShare is the most of the window the turns kept verbatim may take;
// the latest step is kept whatever its size.
const keepShare = 0.2

// summaryMsg asks for the summary, after the whole conversation, so that
// the call reads the conversation from the prompt cache.
const summaryMsg = `[harness] This conversation is about to outgrow the model's context window: its older turns will be replaced by your summary, and only the latest turns kept as they are. Do not call any tool now. Write the summary you will need to go on with the task without the older turns:
1. the task, restated completely, every requirement included;
2. every file you created, changed or deleted, and its current state;
3. what you tried that failed, and why;
4. what remains to be done, in order.
Be specific: paths, names, numbers, error messages. Reply with the summary only.`

// compactedMsg opens the compacted history: %[1]s is the task, %[2]s the
// summary, %[3]s the files the run changed.
const compactedMsg = `[harness] The earlier turns of this conversation were replaced by a summary, to stay within the model's context window. The latest turns follow as they were.

The task:
%[1]s

Summary of the work so far, written by you before the earlier turns were dropped:
%[2]s

Files this run has changed so far, as they are now:
%[3]s`

// mechanicalSummary stands in for a summary the model did not write.
const mechanicalSummary = "(The model wrote no summary. Read the files above to see where the work stands.)"

// request is the worker's next call.
func (r *run) request() *llm.Request {
	req := &llm.Request{
		Model:     r.cfg.l.modelName,
		System:    r.cfg.System,
		Messages:  r.msgs,
		MaxTokens: r.maxTok,
		NoCache:   r.cfg.l.noCache,
	}
	if r.cfg.Tools != nil {
		req.Tools = r.cfg.Tools.Specs()
	}
	return req
}

// Why a compaction happens, as its event says (event.CompactInfo.Cause).
const (
	// compactAtThreshold: the next call's estimated prompt would pass
	// CompactAt of the window.
	compactAtThreshold = ""
	// compactFull: a reply stopped at the window (fullWindow).
	compactFull = "full"
	// compactOverflow: the server refused the prompt as over its window.
	compactOverflow = "overflow"
)

// compact replaces the older turns by a summary when the next call's
// estimated prompt would pass the threshold, or at once when cause says
// the window is full already (compactFull, compactOverflow). It returns
// the run's end when the summary's call failed (a budget that would be
// crossed, an API failure), and whether the history was compacted.
func (r *run) compact(ctx context.Context, cause string) (*Result, bool) {
	window := r.window
	if window <= 0 {
		return nil, false
	}
	at := r.cfg.CompactAt
	if at <= 0 || at > 1 {
		at = DefaultCompactAt
	}
	chars := r.request().Chars()
	est := r.promptTokens(chars)
	if cause == compactAtThreshold && float64(est) <= at*float64(window) {
		r.nextChars = chars
		return nil, false
	}
	keep := keepFrom(r.msgs, window)
	if keep <= 0 {
		return nil, false // nothing older than the latest step: nothing to drop
	}
	// What the compacted history would be with an empty summary: when
	// that is no smaller than the history now (the system prompt and
	// the tools, which no summary shortens, fill the window, and the
	// turns dropped are fewer than the frame and the task restated), a
	// summary call would only make the prompt bigger. Both are counted
	// as the server counts them (promptTokens): a count of characters
	// took in tool schemas that the server's chat template drops, and
	// always found that a summary would not help (issue 28).
	floor := r.request()
	floor.Messages = append([]llm.Message{llm.UserText(fmt.Sprintf(compactedMsg, r.task, "", r.changedList()))}, r.msgs[keep:]...)
	if r.promptTokens(floor.Chars()) >= est {
		r.nextChars = chars
		return nil, false
	}
	req := r.request()
	req.Messages = append(slices.Clone(r.msgs), llm.UserText(summaryMsg))
	if cause != compactAtThreshold {
		// The whole history fills the window already: the summary is
		// asked of the turns it replaces, the request the last of them
		// ends with.
		req.Messages = summaryOf(r.msgs[:keep])
	}
	req.MaxTokens = r.room(r.cfg.l.maxTokens, r.promptTokens(req.Chars()))
	r.byFallback = false
	resp, err := r.model.Generate(ctx, req)
	r.spent()
	var summary string
	var usage llm.Usage
	switch c := llm.ClassOf(err); {
	case err == nil:
		summary, usage = strings.TrimSpace(resp.Message().Text()), resp.Usage
	case (c == llm.BadRequest || c == llm.ContextOverflow) && ctx.Err() == nil:
		// The summary's own request was refused, most likely as too
		// long: the history has outgrown the window already (the
		// estimate fell short). Ending the run here is what compaction
		// is for avoiding; the history is compacted without a summary.
		if c == llm.ContextOverflow {
			r.overflowed(err, est)
		}
	default:
		return r.apiEnd(fmt.Errorf("compaction: %w", err)), false
	}
	how := "model"
	if summary == "" {
		summary, how = mechanicalSummary, "mechanical"
	}
	before := len(r.msgs)
	head := llm.UserText(fmt.Sprintf(compactedMsg, r.task, summary, r.changedList()))
	r.msgs = append([]llm.Message{head}, r.msgs[keep:]...)
	r.compactions++
	r.nextChars = r.request().Chars()
	after := r.promptTokens(r.nextChars)
	r.emit(event.NewCompact(event.CompactInfo{
		Window: window, Threshold: at, BeforeTokens: est, AfterTokens: after,
		MessagesBefore: before, MessagesAfter: len(r.msgs), Kept: before - keep,
		Summary: how, SummaryChars: len(summary), Usage: usage, Cost: r.priceOf(usage), Err: err, Cause: cause,
	}))
	r.save(r.state())
	return nil, true
}

// summaryOf is the conversation msgs with the request for the summary
// added to its last turn, a user turn (the turns before an assistant
// turn kept, keepFrom), so that the roles still alternate.
func summaryOf(msgs []llm.Message) []llm.Message {
	out := slices.Clone(msgs)
	last := &out[len(out)-1]
	last.Content = append(slices.Clone(last.Content), llm.Text(summaryMsg))
	return out
}

// keepFrom returns the index of the first message kept verbatim: the
// latest turns, from an assistant turn on (the compacted history opens
// with the summary, a user turn), as many as fit in keepShare of the
// window, and the latest step at least. Zero means nothing can be
// dropped: no assistant turn lies before the ones kept, so a summary
// would only restate the last one (a history that is still too big after
// a compaction is not summarised again and again).
func keepFrom(msgs []llm.Message, window int) int {
	budgetTokens := int64(keepShare * float64(window))
	var tokens int64
	keep := 0
	for i := len(msgs) - 1; i > 0; i-- {
		tokens += messageTokens(msgs[i])
		if msgs[i].Role != llm.Assistant {
			continue
		}
		if keep > 0 && tokens > budgetTokens {
			break
		}
		keep = i
	}
	for _, m := range msgs[:keep] {
		if m.Role == llm.Assistant {
			return keep
		}
	}
	return 0
}

// messageTokens estimates a message's tokens as the budget's estimate
// does, at llm.CharsPerToken.
func messageTokens(m llm.Message) int64 { return llm.Tokens(m.Chars()) }

// changedList lists the files the run changed with their state now.
func (r *run) changedList() string {
	paths := r.changedFiles()
	if len(paths) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for _, p := range paths {
		b.WriteString("- " + p)
		if r.cfg.Root != nil {
			if fi, err := r.cfg.Root.Stat(p); err != nil {
				b.WriteString(" (deleted)")
			} else if !fi.IsDir() {
				fmt.Fprintf(&b, " (%d bytes)", fi.Size())
			}
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
