package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/internal/cassette"
	"github.com/nightshift-dev/nightshift/internal/proxy"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// faultFlags are the flags that give a fault schedule: --faults FILE,
// --fault KIND=RATE and --seed N (`sim proxy` and `eval reliability`).
type faultFlags struct {
	file  string
	rates []string
	seed  uint64
}

func (f *faultFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.file, "faults", "", "fault schedule FILE: YAML with rate: (kind → probability) and at: (request number → fault); docs/scenarios.md")
	fl.StringArrayVar(&f.rates, "fault", nil, "a fault kind's rate, KIND=RATE, repeatable (429=0.1, cut=0.05; kinds: 429, 529, 500, reset, reset_after_headers, cut, stall, truncate, empty, broken_json, unknown_tool)")
	fl.Uint64Var(&f.seed, "seed", proxy.DefaultSeed, "seed of the schedule's draws: the same seed, the same schedule (default: the file's seed, else 1)")
}

// schedule reads the schedule the flags give; nil when they give none.
func (f *faultFlags) schedule(cmd *cobra.Command) (*proxy.Schedule, error) {
	if f.file == "" && len(f.rates) == 0 {
		if cmd.Flags().Changed("seed") {
			return nil, usagef("--seed seeds a fault schedule: give one with --faults FILE or --fault KIND=RATE")
		}
		return nil, nil
	}
	s := &proxy.Schedule{}
	if f.file != "" {
		if err := checkInputFile("the fault schedule", f.file, "the format is in docs/scenarios.md"); err != nil {
			return nil, err
		}
		var err error
		if s, err = proxy.LoadSchedule(f.file); err != nil {
			return nil, usageError(err)
		}
	}
	for _, r := range f.rates {
		if err := s.SetRate(r); err != nil {
			return nil, usagef("--fault %s: %v", r, err)
		}
	}
	if cmd.Flags().Changed("seed") || s.Seed == 0 {
		s.Seed = f.seed
	}
	return s, nil
}

func newSimProxyCmd() *cobra.Command {
	var upstream, addr, record string
	var ff faultFlags
	cmd := &cobra.Command{
		Use:   "proxy --upstream URL [--faults FILE] [--fault KIND=RATE]... [--seed N] [--record FILE]",
		Short: "Forward to a real provider, injecting faults on a seeded schedule",
		Long: `proxy is an HTTP server in front of a real provider (or any OpenAI-compatible
server, or nightshift sim serve): it forwards the Anthropic Messages API and the
OpenAI Chat Completions API, streaming and not, count_tokens and the model
listings included, to --upstream, with the caller's own key (never logged,
never recorded), and injects faults on a seeded schedule. Without faults it is
transparent: the same bytes, framing and headers. A request's path is appended
to the upstream's: give the upstream as the client's base URL would be
(https://api.anthropic.com, https://api.openai.com/v1) and point the client at
the proxy's URL.

The faults: 429 (with Retry-After), 529, 500 (any status 400-599), reset
(before the headers), reset_after_headers, cut (a reply cut mid-way), stall,
truncate (the real answer cut as max_tokens cuts it, its stop reason set),
empty, broken_json (tool-call input cut), unknown_tool (a tool renamed to one
that does not exist). --fault KIND=RATE gives a kind's probability per
request; --faults FILE gives rates and faults at request numbers
(docs/scenarios.md). Request n's draw depends only on the seed and n.

The first line on stdout is the base URL, exactly, as for sim serve; one line
per request on stderr says what the proxy did. --record FILE writes every
exchange to a cassette, keys redacted, which nightshift sim serve --cassette
FILE replays. It serves until interrupted (SIGINT/SIGTERM), then exits 130, as
every command a signal stops does.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("sim proxy takes no arguments; give the provider as --upstream URL")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if upstream == "" {
				return usagef("sim proxy needs --upstream URL: the provider's base URL, for example https://api.anthropic.com or https://api.openai.com/v1")
			}
			sched, err := ff.schedule(cmd)
			if err != nil {
				return err
			}
			if err := checkAddr(addr); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			cfg := proxy.Config{Upstream: upstream, Schedule: sched, Log: stderr}
			if _, err := proxy.New(cfg); err != nil {
				return usageError(err)
			}
			if record != "" {
				w, done, err := createCassette(cmd, record, upstream)
				if err != nil {
					return err
				}
				defer done()
				cfg.Record = w
			}
			p, err := proxy.New(cfg)
			if err != nil {
				return usageError(err)
			}
			rec := ""
			if record != "" {
				rec = " · recording to " + record
			}
			fmt.Fprintf(stderr, "proxy: upstream %s · %s%s\n", redactorOf(cmd.Context()).String(upstream), sched, rec)
			err = scripted.ServeHandler(cmd.Context(), p, addr, dataOut(cmd))
			// Every exchange that began is recorded before the cassette
			// is closed.
			p.Wait()
			return err
		},
	}
	cmd.Flags().StringVar(&upstream, "upstream", "", "the provider's base URL: https://api.anthropic.com, https://api.openai.com/v1, http://localhost:11434/v1, a sim serve URL")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	cmd.Flags().StringVar(&record, "record", "", "write every exchange to this new cassette FILE (JSON lines, keys redacted; docs/cassettes.md)")
	ff.add(cmd)
	return cmd
}

// createCassette creates a new cassette file; it refuses one that exists,
// which may be an earlier recording.
func createCassette(cmd *cobra.Command, path, upstream string) (*cassette.Writer, func(), error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, nil, usagef("--record %s exists: name a new file (an earlier recording is kept as it is)", path)
	}
	if err != nil {
		return nil, nil, usagef("--record %s cannot be created (%v): name a file in a folder you can write", path, errors.Unwrap(err))
	}
	w, err := cassette.NewWriter(f, cassette.Header{Upstream: upstream, Recorded: time.Now().UTC()}, redactorOf(cmd.Context()).With())
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return w, func() {
		if err := f.Close(); err != nil {
			warnf(cmd.ErrOrStderr(), "the cassette %s: %v", path, err)
		}
	}, nil
}

// serveCassette is `sim serve --cassette FILE`: the recorded session
// played back, behind the rate limit when one is asked for.
func serveCassette(cmd *cobra.Command, path, addr string, lim *simLimit) error {
	if err := checkInputFile("the cassette", path, "record one with nightshift sim proxy --record FILE; the format is in docs/cassettes.md"); err != nil {
		return err
	}
	c, err := cassette.Load(path)
	if err != nil {
		return usageError(err)
	}
	if err := checkAddr(addr); err != nil {
		return err
	}
	h := cassette.NewServer(c, cassette.ServerConfig{Log: cmd.ErrOrStderr()})
	if lim.limit != 0 || cmd.Flags().Changed("per") || lim.noHeaders {
		return lim.serve(cmd, h, addr)
	}
	return scripted.ServeHandler(cmd.Context(), h, addr, dataOut(cmd))
}
