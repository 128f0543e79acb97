package night

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/internal/wholenum"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/provider"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/verify"
)

// ErrBadPipeline marks a pipeline file that cannot be run (exit status 2).
var ErrBadPipeline = errors.New("bad pipeline file")

// Defaults for a pipeline file's zero fields.
const (
	DefaultBuilderCeiling = 14 // seed 003: "its ceiling of 14 steps"
	DefaultWIP            = 3
	DefaultParkDeadline   = 12 * time.Hour
	DefaultBuilderSteps   = 20
)

// Pipeline is a pipeline file: the roles, their models, the window and the
// limits. docs/night.md documents every field.
type Pipeline struct {
	// Window is when the night runs.
	Window Window `yaml:"window"`
	// WIP caps the tasks in progress (queued and takeable tonight) before
	// the proposer stops adding ideas; default 3.
	WIP int `yaml:"wip"`
	// BudgetTokens is the night's token budget, all workers together;
	// 0 means none. Spending it ends the night (ceilings reached).
	BudgetTokens int64 `yaml:"budget_tokens"`
	// BudgetUSD is the night's budget in US dollars, all workers
	// together, priced by the model table; 0 means none. Spending it
	// ends the night (ceilings reached), as the token budget does; every
	// model of the pipeline must have a price in the table.
	BudgetUSD float64 `yaml:"budget_usd"`
	// ModelsFile is a model table file (llm/models: prices, context
	// windows, default models) laid over the embedded one, as `nightshift
	// run --models FILE`; relative to the pipeline file; default none.
	ModelsFile string `yaml:"models_file"`
	// Park says how long a parked task waits for a person and what
	// happens past the deadline.
	Park Park `yaml:"park"`
	// Models are the models by name.
	Models map[string]ModelSpec `yaml:"models"`
	// Roles are the roles by name: proposer, judge, builder. Only the
	// builder is required.
	Roles map[ledger.Role]*RoleSpec `yaml:"roles"`
	// Rules override rows of the default failure rules table.
	Rules []Rule `yaml:"rules"`
	// WorkDir is where each task's workspace folder lives, relative to
	// the pipeline file; default "work".
	WorkDir string `yaml:"work_dir"`
	// NoCache turns prompt caching off for every role's calls, as
	// --no-cache does; default false: caching on.
	NoCache bool `yaml:"no_cache"`
	// MCP are MCP servers whose tools the builder's attempts get, as in a
	// task file's mcp: section (a command or a url, a class, classes per
	// tool; default danger, which at night parks the task).
	MCP map[string]runspec.MCPServer `yaml:"mcp"`

	// dir is the pipeline file's folder; relative paths start there.
	dir string
	// file is the pipeline file, as LoadPipeline read it; the night's
	// setup records it for the commands the report suggests.
	file string
	// table is the model table, once read (ModelTable).
	table *models.Table
	// rests are the primaries' rests by model name (Fallback): shared
	// by every step and call of the process, so that a model that ran
	// out of retries rests for all of them. Nil for a Pipeline not made
	// by ParsePipeline: each call rests its own.
	rests *rests
}

// rests holds a fallback.Rest per primary model.
type rests struct {
	mu sync.Mutex
	m  map[string]*fallback.Rest
}

// of returns model's rest; nil for a nil table.
func (r *rests) of(model string) *fallback.Rest {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[model] == nil {
		r.m[model] = &fallback.Rest{}
	}
	return r.m[model]
}

// Window is the nightly window, as times of day in a zone. An end at or
// before the start is on the next day.
type Window struct {
	Start string `yaml:"start"` // "22:00"
	End   string `yaml:"end"`   // "06:00"
	// Zone is an IANA zone name; default UTC.
	Zone string `yaml:"zone"`
}

// Park configures parking.
type Park struct {
	// Deadline is how long a parked task waits; default 12h.
	Deadline Duration `yaml:"deadline"`
	// PastDeadline is "fail" (the default) or "requeue".
	PastDeadline string `yaml:"past_deadline"`
}

// ModelSpec is one model a worker runs on.
type ModelSpec struct {
	// Provider is "scripted", "anthropic" or "openai".
	Provider string `yaml:"provider"`
	// Model is the provider's model name.
	Model string `yaml:"model"`
	// Scenario is the scripted model's scenario file, relative to the
	// pipeline file.
	Scenario string `yaml:"scenario"`
	// BaseURL points the provider at another server (an OpenAI-compatible
	// one, or the scripted simulator).
	BaseURL string `yaml:"base_url"`
	// APIKeyEnv names the environment variable holding the key; default
	// the provider's usual one. The key itself never goes in the file.
	APIKeyEnv string `yaml:"api_key_env"`
	// BudgetTokens is this worker's token budget per night; 0 means none.
	BudgetTokens int64 `yaml:"budget_tokens"`
	// MaxTokensField (openai only) names the request field of the output
	// cap: max_tokens or max_completion_tokens. Default: the latter for
	// OpenAI's own endpoint, the former for any other server.
	MaxTokensField string `yaml:"max_tokens_field"`
}

// RoleSpec is one role: its models, its prompt and its ceiling, and the
// run configuration of its steps (runspec.Spec, under the keys of the
// table's pipeline column: max_steps, budget_usd, checks, judge, ...).
// Only the builder runs tools and has its result verified: the other
// roles take models, prompt, ceiling, max_steps, fallback and
// fallback_on.
type RoleSpec struct {
	// Models is the ordered list of the role's models (its workers).
	Models []string `yaml:"models"`
	// Prompt is the role's system prompt.
	Prompt string `yaml:"prompt"`
	// Ceiling is the most steps the role takes in a night; the builder's
	// default is 14, the others' 0 (none).
	Ceiling int `yaml:"ceiling"`
	// roleKeys are the role's own names of four of Spec's fields,
	// decoded here and moved into Spec when the pipeline is loaded; they
	// are read nowhere else.
	roleKeys `yaml:",inline"`
	// Spec is the role's run options: its keys, as a task file has them,
	// and four of a role's own (the table's RoleKey), moved into it when
	// the pipeline is loaded. The role's are fallback (FallbackModel: a
	// model under models that answers the role's calls its own model
	// cannot, retries exhausted on a timing failure or two empty answers
	// in a row, as --fallback-model does; a step the fallback rescued is
	// no failure; default none), judge (JudgeModel: a model under models
	// that judges the builder's results, as --judge-model does; default
	// the model of the attempt, the builder's own, unless no_judge), keep
	// (Keep: commit every builder attempt's changes, whatever its
	// outcome, as --keep does; default false: an attempt that does not
	// end done is rolled back), subagents (Subagents: the builder
	// gets delegate_task, a read-only sub-agent; default off) and memory
	// (Memory: the builder gets remember and recall over its task's notes
	// in the ledger, and starts each attempt with the notes and failure
	// reasons of the task's earlier attempts; default on for the
	// builder). The task
	// file's keys are
	// max_steps (the builder's step brake inside one attempt, default
	// 20), budget_usd, budget_tokens and timeout (each attempt's own,
	// reached: a failed step of its task), rollback_on_interrupt, approve,
	// sandbox, sandbox_net, env, command_timeout, checks, rubric,
	// no_judge, max_verify_rounds, output_schema, max_tokens, loop_limit,
	// max_calls_per_reply, context_window and fallback_on. See
	// docs/night.md.
	runspec.Spec `yaml:",inline"`

	// schema is output_schema read when the pipeline was loaded: the
	// content, never the path again.
	schema *jsonschema.Resolved
	// lines are the lines of the role's keys, for naming one.
	lines map[string]int
	// memoryGiven says the role has a memory: key (only the builder
	// may).
	memoryGiven bool
}

// Duration is a time.Duration written as "12h" or "90m".
type Duration = runspec.Duration

// LoadPipeline reads and checks a pipeline file. The files it names
// (a role's output_schema) are read now, relative to it, and kept: a
// night is checked by what it started with.
func LoadPipeline(path string) (*Pipeline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPipeline, err)
	}
	p, err := parsePipeline(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.file = path
	if err := p.checkPrices(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePipeline reads and checks a pipeline from YAML; unknown fields are
// errors, so a typo never silently means a default. Relative paths are
// read from the current folder.
func ParsePipeline(data []byte) (*Pipeline, error) { return parsePipeline(data, "") }

func parsePipeline(data []byte, dir string) (*Pipeline, error) {
	var p Pipeline
	if err := runspec.DecodeYAML(data, &p); err != nil {
		if errors.Is(err, runspec.ErrEmpty) {
			return nil, fmt.Errorf("%w: the file is empty: a pipeline needs at least window, models and roles (docs/night.md)", ErrBadPipeline)
		}
		return nil, fmt.Errorf("%w: %w", ErrBadPipeline, err)
	}
	if err := wholenum.Check(data, &p); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPipeline, err)
	}
	p.dir = dir
	p.roleLines(data)
	for role, r := range p.Roles {
		if r != nil {
			r.moveRoleKeys(role)
		}
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPipeline, err)
	}
	p.rests = &rests{m: map[string]*fallback.Rest{}}
	return &p, nil
}

// roleKeys are the keys a role names four fields of its Spec by (the
// table's RoleKey differs from the task file's Key, or a task file has
// none): a model named under models, the builder's switches.
type roleKeys struct {
	RoleFallback  string `yaml:"fallback"`
	RoleJudge     string `yaml:"judge"`
	RoleKeep      bool   `yaml:"keep"`
	RoleSubagents bool   `yaml:"subagents"`
	RoleMemory    *bool  `yaml:"memory"`
}

// moveRoleKeys moves the role's own keys into its Spec, so that the
// Spec says all the table says, and is the one place they are read.
func (r *RoleSpec) moveRoleKeys(role ledger.Role) {
	k := r.roleKeys
	r.roleKeys = roleKeys{}
	r.FallbackModel, r.JudgeModel, r.Spec.Keep, r.Spec.Subagents = k.RoleFallback, k.RoleJudge, k.RoleKeep, k.RoleSubagents
	// Memory is on for the builder unless it says memory: false.
	r.memoryGiven = k.RoleMemory != nil
	r.Spec.Memory = role == ledger.Builder && (k.RoleMemory == nil || *k.RoleMemory)
}

// roleLines records the lines of each role's keys.
func (p *Pipeline) roleLines(data []byte) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "roles" {
			continue
		}
		roles := top.Content[i+1]
		for j := 0; j+1 < len(roles.Content); j += 2 {
			if r := p.Roles[ledger.Role(roles.Content[j].Value)]; r != nil {
				r.lines = runspec.MappingLines(roles.Content[j+1])
			}
		}
	}
}

// checkRoleKeys refuses a key a role does not take (a task file's key
// that names something a pipeline says otherwise, or at its top level),
// and a builder's key on another role, each with its line.
func (p *Pipeline) checkRoleKeys(role ledger.Role, r *RoleSpec) error {
	at := func(key string) string {
		if n := r.lines[key]; n > 0 {
			return fmt.Sprintf("line %d: ", n)
		}
		return ""
	}
	for _, o := range runspec.Table {
		if o.Key == "" || o.RoleKey == o.Key || r.lines[o.Key] == 0 {
			continue
		}
		switch {
		case o.RoleKey != "":
			return fmt.Errorf("%sroles.%s.%s is a task file's key: a pipeline names the model under models, as roles.%s.%s", at(o.Key), role, o.Key, role, o.RoleKey)
		case o.Key == "models_file" || o.Key == "mcp" || o.Key == "no_cache":
			return fmt.Errorf("%sroles.%s.%s: %s is the pipeline's own key, for every role: move it to the top level", at(o.Key), role, o.Key, o.Key)
		}
		return fmt.Errorf("%sroles.%s.%s is not a key of a pipeline role (a role's keys: models, prompt, ceiling, %s)", at(o.Key), role, o.Key,
			strings.Join(runspec.RoleKeys(), ", "))
	}
	if role == ledger.Builder {
		return nil
	}
	for _, key := range []string{"checks", "rubric", "no_judge", "claims", "judge", "max_verify_rounds", "output_schema", "keep",
		"max_tokens", "loop_limit", "max_calls_per_reply", "context_window"} {
		if r.lines[key] > 0 {
			return fmt.Errorf("%sroles.%s: %s is for the builder, the only role whose steps run tools and are verified", at(key), role, key)
		}
	}
	return nil
}

// checkVerify checks the builder's verify keys, and reads its
// output_schema.
func (p *Pipeline) checkVerify(r *RoleSpec) error {
	if _, ok := p.Models[r.JudgeModel]; r.JudgeModel != "" && !ok {
		return fmt.Errorf("roles.builder.judge: model %q is not under models", r.JudgeModel)
	}
	if r.JudgeModel != "" && r.NoJudge {
		return errors.New("roles.builder: judge and no_judge cannot both be given: drop one")
	}
	if r.Spec.Keep && r.RollbackOnInterrupt {
		return errors.New("roles.builder: keep and rollback_on_interrupt cannot both be given: drop one")
	}
	if err := r.Spec.ValidateIn(p.Path(".")); err != nil {
		return runspec.InRole(err, string(ledger.Builder), "", r.lines)
	}
	if r.OutputSchema != "" {
		res, err := verify.LoadSchema(p.Path("."), r.OutputSchema)
		if err != nil {
			return fmt.Errorf("roles.builder.output_schema: %w", err)
		}
		r.schema = res
	}
	return nil
}

func (p *Pipeline) check() error {
	if p.WIP == 0 {
		p.WIP = DefaultWIP
	}
	if p.WIP < 0 || p.BudgetTokens < 0 || p.BudgetUSD < 0 {
		return errors.New("wip, budget_tokens and budget_usd must not be negative")
	}
	if p.Park.Deadline == 0 {
		p.Park.Deadline = Duration(DefaultParkDeadline)
	}
	switch p.Park.PastDeadline {
	case "":
		p.Park.PastDeadline = "fail"
	case "fail", "requeue":
	default:
		return fmt.Errorf("park.past_deadline is %q: write fail or requeue", p.Park.PastDeadline)
	}
	if _, _, err := p.Window.parse(); err != nil {
		return err
	}
	if p.Roles[ledger.Builder] == nil {
		return errors.New("roles: a builder is required")
	}
	for role, r := range p.Roles {
		if !role.Valid() {
			return fmt.Errorf("roles: unknown role %q (proposer, judge, builder)", role)
		}
		if r == nil || len(r.Models) == 0 {
			return fmt.Errorf("roles.%s: list at least one model", role)
		}
		if err := p.checkRoleKeys(role, r); err != nil {
			return err
		}
		for _, m := range r.Models {
			if _, ok := p.Models[m]; !ok {
				return fmt.Errorf("roles.%s: model %q is not under models", role, m)
			}
		}
		if r.Ceiling < 0 || r.MaxSteps < 0 || r.BudgetUSD < 0 || r.BudgetTokens < 0 || r.Timeout < 0 {
			return fmt.Errorf("roles.%s: ceiling, max_steps, budget_usd, budget_tokens and timeout must not be negative", role)
		}
		if role != ledger.Builder {
			for field, set := range map[string]bool{
				"approve": len(r.Approve) > 0, "sandbox": r.Sandbox != "", "sandbox_net": r.SandboxNet,
				"env": len(r.Env) > 0, "command_timeout": r.CommandTimeout != 0,
			} {
				if set {
					return fmt.Errorf("roles.%s: %s is for the builder, the only role that runs tools", role, field)
				}
			}
			for field, set := range map[string]bool{
				"budget_usd": r.BudgetUSD != 0, "budget_tokens": r.BudgetTokens != 0, "timeout": r.Timeout != 0,
			} {
				if set {
					return fmt.Errorf("roles.%s: %s is for the builder's attempts; a %s step is one call, bounded by the night's budget_usd and models.*.budget_tokens",
						role, field, role)
				}
			}
		}
		// Every role's values through the one validation (the run
		// spec's), named as roles.ROLE.KEY with their line; the
		// builder's after its own verify keys (checkVerify).
		if err := r.Spec.ValidateIn(p.Path(".")); err != nil && role != ledger.Builder {
			return runspec.InRole(err, string(role), "", r.lines)
		}
		if (r.Spec.Subagents || r.memoryGiven) && role != ledger.Builder {
			return fmt.Errorf("roles.%s: subagents and memory are for the builder, the only role that runs tools", role)
		}
		if r.RollbackOnInterrupt && role != ledger.Builder {
			return fmt.Errorf("roles.%s: rollback_on_interrupt is for the builder, the only role whose steps change files", role)
		}
		if _, ok := p.Models[r.FallbackModel]; r.FallbackModel != "" && !ok {
			return fmt.Errorf("roles.%s.fallback: model %q is not under models", role, r.FallbackModel)
		}
		if r.FallbackOn != "" && r.FallbackOn != "quota" {
			return fmt.Errorf("roles.%s.fallback_on is %q: the only choice is quota", role, r.FallbackOn)
		}
		if r.FallbackModel != "" && len(r.Models) > 0 && !slices.ContainsFunc(r.Models, func(m string) bool { return m != r.FallbackModel }) {
			// A model is never its own fallback (Fallback): this one
			// would never be used.
			return fmt.Errorf("roles.%s.fallback: %q is the role's only model, and a model is never its own fallback: name another model under models", role, r.FallbackModel)
		}
		if r.FallbackOn != "" && r.FallbackModel == "" {
			// As --fallback-on without --fallback-model: a setting that
			// would do nothing is a mistake to say, not to drop.
			return fmt.Errorf("roles.%s.fallback_on says when to use the fallback model: name one with roles.%s.fallback (a model under models)", role, role)
		}
	}
	b := p.Roles[ledger.Builder]
	if err := p.checkVerify(b); err != nil {
		return err
	}
	if b.Ceiling == 0 {
		b.Ceiling = DefaultBuilderCeiling
	}
	if b.MaxSteps == 0 {
		b.MaxSteps = DefaultBuilderSteps
	}
	for name, m := range p.Models {
		if !runspec.IsProvider(m.Provider) {
			return fmt.Errorf("models.%s: provider %q (%s)", name, m.Provider, strings.Join(runspec.Providers, ", "))
		}
		if m.Provider == "scripted" && m.Scenario == "" {
			return fmt.Errorf("models.%s: a scripted model needs a scenario file", name)
		}
		if err := provider.CheckMaxTokensField(m.Provider, m.MaxTokensField); err != nil {
			return fmt.Errorf("models.%s: %w", name, err)
		}
	}
	if _, err := RulesWith(p.Rules); err != nil {
		return err
	}
	if p.WorkDir == "" {
		p.WorkDir = "work"
	}
	if _, err := p.MCPServers(); err != nil {
		return err
	}
	return nil
}

// MCPServers returns the builder's MCP servers (mcp:), sorted by name, a
// relative program path read from the pipeline file's folder.
func (p *Pipeline) MCPServers() ([]mcp.Server, error) {
	return taskfile.Servers(p.MCP, p.dir)
}

// BuilderMemory reports whether the builder has memory (on unless
// roles.builder.memory says false).
func (p *Pipeline) BuilderMemory() bool { return p.Roles[ledger.Builder].Spec.Memory }

// Path resolves a path written in the pipeline file.
func (p *Pipeline) Path(rel string) string {
	if filepath.IsAbs(rel) || p.dir == "" {
		return rel
	}
	return filepath.Join(p.dir, rel)
}

// Policy returns the builder's gate policy.
func (p *Pipeline) Policy() gate.Policy {
	// check parsed these rules already; the error cannot happen.
	pol, _ := gate.ParsePolicy(p.Roles[ledger.Builder].Approve...)
	return pol
}

// BuilderToolNames are the names of the default builder's tools as far
// as they are known before the night starts, for ValidatePolicy: the
// default tools, remember and recall (memory), delegate_task
// (subagents), and the names its approve rules give tools of its MCP
// servers (SERVER__tool), which only a run can check, once the servers
// listed their tools.
func (p *Pipeline) BuilderToolNames() []string {
	b := p.Roles[ledger.Builder]
	cfg := lifecycle.Config{Spec: &b.Spec}
	if p.BuilderMemory() {
		cfg.Memory = &lifecycle.Memory{}
	}
	cfg.MCP, _ = p.MCPServers()
	names, prefixes := lifecycle.ExtraToolNames(cfg)
	names = append(lifecycle.DefaultToolNames(), names...)
	for _, spec := range b.Approve {
		for rule := range strings.SplitSeq(spec, ",") {
			key, _, _ := strings.Cut(strings.TrimSpace(rule), "=")
			for _, pre := range prefixes {
				if strings.HasPrefix(key, pre) {
					names = append(names, key)
				}
			}
		}
	}
	return names
}

// ValidatePolicy checks the builder's approve rules against tools, the
// names of the builder's final tool set: a rule naming no tool of it is an
// error matching ErrBadPipeline (exit 2) that lists the tools.
func (p *Pipeline) ValidatePolicy(tools []string) error {
	if err := p.Policy().Validate(tools); err != nil {
		return fmt.Errorf("%w: roles.builder.approve: %w", ErrBadPipeline, err)
	}
	return nil
}

// BuilderCommands returns how the builder's commands run: its sandbox
// (mode, network, variables) and the command timeout (0: the default).
func (p *Pipeline) BuilderCommands() (sandbox.Config, time.Duration) {
	b := p.Roles[ledger.Builder]
	// check parsed the mode already; the error cannot happen.
	sbc, _ := b.SandboxConfig()
	return sbc, b.CommandTimeout.D()
}

// KeyEnvs returns the variables the pipeline's models take their keys
// from (api_key_env), for the redactor.
func (p *Pipeline) KeyEnvs() []string {
	var out []string
	for _, m := range p.Models {
		if m.APIKeyEnv != "" {
			out = append(out, m.APIKeyEnv)
		}
	}
	return out
}

// Role returns the role's spec, or nil when the pipeline has no such role.
func (p *Pipeline) Role(r ledger.Role) *RoleSpec { return p.Roles[r] }

func (w Window) parse() (start, end time.Duration, err error) {
	parse := func(field, s string) (time.Duration, error) {
		t, err := time.Parse("15:04", s)
		if err != nil {
			return 0, fmt.Errorf("window.%s is %q: write a time of day like 22:00", field, s)
		}
		return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
	}
	if start, err = parse("start", w.Start); err != nil {
		return
	}
	if end, err = parse("end", w.End); err != nil {
		return
	}
	if _, err = w.location(); err != nil {
		err = fmt.Errorf("window.zone: %w", err)
	}
	return
}

// loc is the window's zone; the pipeline's check made sure it loads.
func (w Window) loc() *time.Location {
	l, err := w.location()
	if err != nil {
		return time.UTC
	}
	return l
}

func (w Window) location() (*time.Location, error) {
	if w.Zone == "" {
		return time.UTC, nil
	}
	return time.LoadLocation(w.Zone)
}

// StartOn returns when the window that starts on day's date opens.
func (w Window) StartOn(day time.Time) time.Time {
	so, _, _ := w.parse()
	return onDay(day.Year(), day.Month(), day.Day(), so, w.loc())
}

// Bounds returns the window that contains now, or the next one when now is
// outside every window. Both ends are times of day on the wall clock of
// the window's zone: on the nights the clocks change, a window of 22:00 to
// 06:00 still opens at 22:00 and closes at 06:00, and lasts 7 or 9 hours.
func (w Window) Bounds(now time.Time) (start, end time.Time) {
	so, eo, _ := w.parse()
	loc := w.loc()
	now = now.In(loc)
	next := 0
	if eo <= so {
		next = 1 // the end is on the next day
	}
	y, m, d := now.Date()
	for k := -1; ; k++ {
		start, end = onDay(y, m, d+k, so, loc), onDay(y, m, d+k+next, eo, loc)
		if now.Before(end) || k == 2 {
			return start, end
		}
	}
}

// onDay is the moment the time of day off (hours and minutes after
// midnight, as parse reads it) shows on the clocks of loc on the date y,
// m, d (normalised as time.Date does). It is not midnight plus off: on a
// day the clocks change, midnight plus 22 hours is 21:00 or 23:00. A time
// of day the change skips (02:30 as the clocks go forward) is the moment
// an hour later on the new clock, as time.Date makes it.
func onDay(y int, m time.Month, d int, off time.Duration, loc *time.Location) time.Time {
	return time.Date(y, m, d, int(off/time.Hour), int(off%time.Hour/time.Minute), 0, 0, loc)
}

// Fallback returns the fallback of the role's calls, built from models
// (by pipeline name) with its limiter and the rest of the model making
// the call (shared by all the calls it makes), or nil when the role has
// none, or when its fallback is the model making the call.
func (p *Pipeline) Fallback(role ledger.Role, worker string, models map[string]llm.Model, limiters map[string]*retry.Limiter) *agent.Fallback {
	r := p.Roles[role]
	if r == nil || r.FallbackModel == "" || r.FallbackModel == worker || models[r.FallbackModel] == nil {
		return nil
	}
	return &agent.Fallback{Model: models[r.FallbackModel], ModelName: p.ModelName(r.FallbackModel), Price: p.Pricer(r.FallbackModel),
		Limiter: limiters[r.FallbackModel], OnQuota: r.FallbackOn == "quota", Rest: p.rests.of(worker),
		ContextWindow: p.ContextWindow(r.FallbackModel)}
}

// ModelTable returns the model table the pipeline's calls are priced by:
// the embedded one (llm/models), with models_file laid over it. It is
// read once.
func (p *Pipeline) ModelTable() (*models.Table, error) {
	if p.table != nil {
		return p.table, nil
	}
	t := models.Default()
	if p.ModelsFile != "" {
		over, err := models.Load(p.Path(p.ModelsFile))
		if err != nil {
			return nil, fmt.Errorf("%w: models_file: %w", ErrBadPipeline, err)
		}
		t = t.Merge(over)
	}
	p.table = t
	return t, nil
}

// ModelName is the provider's name of the pipeline model name: its
// model, or, when it names none, the provider's default, which the
// client then calls. Events and records name it ("" for a scripted model
// without a name).
func (p *Pipeline) ModelName(name string) string { return p.priceName(p.Models[name]) }

// priceName is the name the model table knows a pipeline model's calls
// by: its model, or the provider's default, which the client then calls.
func (p *Pipeline) priceName(m ModelSpec) string {
	if m.Model != "" {
		return m.Model
	}
	return provider.DefaultModel(m.Provider)
}

// Pricer prices the calls of the pipeline model name by the model table;
// nil (every call unknown) when the table cannot be read or the name is
// not under models.
func (p *Pipeline) Pricer(name string) budget.Pricer {
	m, ok := p.Models[name]
	t, err := p.ModelTable()
	if !ok || err != nil {
		return nil
	}
	model := p.priceName(m)
	return func(u llm.Usage) models.Cost { return t.Cost(m.Provider, model, u) }
}

// ContextWindow is the context window of the pipeline model name, in
// tokens, as the model table (with models_file) gives it; 0 when the
// table has none (no compaction), as for `nightshift run` without
// --context-window.
func (p *Pipeline) ContextWindow(name string) int {
	m, ok := p.Models[name]
	t, err := p.ModelTable()
	if !ok || err != nil {
		return 0
	}
	if row, ok := t.Lookup(m.Provider, p.priceName(m)); ok {
		return int(row.ContextWindow)
	}
	return 0
}

// checkPrices reads the model table and makes sure a budget in dollars
// can be kept: the night's budget_usd needs a price for every model a
// role may call, roles.builder.budget_usd one for the builder's models
// and its fallback. A model without one is a bad pipeline (exit 2),
// before anything runs, rather than a night stopped at its first step.
func (p *Pipeline) checkPrices() error {
	t, err := p.ModelTable()
	if err != nil {
		return err
	}
	need := map[string]string{}
	for role, r := range p.Roles {
		var why string
		switch {
		case p.BudgetUSD > 0:
			why = "the night's budget_usd"
		case role == ledger.Builder && r.BudgetUSD > 0:
			why = "roles.builder.budget_usd"
		default:
			continue
		}
		for _, m := range append(slices.Clone(r.Models), r.FallbackModel) {
			if m != "" {
				need[m] = why
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(need)) {
		m := p.Models[name]
		row, ok := t.Lookup(m.Provider, p.priceName(m))
		if !ok || row.Price == nil || row.Price.Input == nil || row.Price.Output == nil {
			return fmt.Errorf("%w: %s: the model table has no price for models.%s (%s %s): give its prices in a models_file (docs/budgets.md), or a budget in tokens instead",
				ErrBadPipeline, need[name], name, m.Provider, cmp.Or(p.priceName(m), "(no model named)"))
		}
	}
	return nil
}
