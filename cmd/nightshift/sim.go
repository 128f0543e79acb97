package main

import (
	"net"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// newSimCmd is `nightshift sim`: the scripted model (or a recorded
// session) as an HTTP server, for testing a provider, an SDK or a whole
// pipeline against the real wire formats without a key or a network; and
// the fault proxy, for the same tests against a real provider.
func newSimCmd() *cobra.Command {
	sim := &cobra.Command{
		Use:   "sim",
		Short: "Serve a scripted model or a recorded session over HTTP, or proxy a real provider with faults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("sim needs a subcommand: nightshift sim serve --scenario FILE, or nightshift sim proxy --upstream URL")
		},
	}
	sim.AddCommand(newSimServeCmd(), newSimProxyCmd())
	return sim
}

func newSimServeCmd() *cobra.Command {
	var scenario, addr, cassetteFile string
	var lim simLimit
	var down simDown
	cmd := &cobra.Command{
		Use:   "serve --scenario FILE | --cassette FILE [--addr HOST:PORT]",
		Short: "Play a scenario as an HTTP server until interrupted",
		Long: `serve plays a scenario (docs/scenarios.md) as an HTTP server that speaks the
Anthropic Messages API (POST /v1/messages, /v1/messages/count_tokens) and the
OpenAI Chat Completions API (POST /v1/chat/completions and /chat/completions),
streaming and not, and both APIs' GET /v1/models.

The first line on stdout is the base URL, exactly (http://127.0.0.1:PORT). The
server keeps running, so read that line from it in the background rather than
waiting for it to end (in bash):

  exec 3< <(nightshift sim serve --scenario s.yaml)   # serve in the background
  read -r url <&3                                     # the first line: the base URL
  ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=test nightshift run "TASK"
  kill $!                                             # stop it (it ends with status 130)

(url=$(nightshift sim serve ... | head -n1) would wait for the server to end.)
One line per request goes to stderr. A client may send the header
X-Sim-Session to keep the attempt counters of identical conversations apart.
It serves until interrupted (SIGINT/SIGTERM), then exits 130, as every
command a signal stops does.

--limit N --per DURATION puts a rate limit in front: at most N requests in any
window of that length (a sliding window); the rest are answered 429 with
Retry-After, and every reply carries the provider's rate-limit headers
(anthropic-ratelimit-requests-*, x-ratelimit-*-requests). --no-headers sends
only the 429 and its Retry-After, like a server that says nothing more.

--down-after N --down-for D puts an outage in the scenario (as its
down: {after: N, for: D} does): after N model calls, every model call for D
is refused, its connection closed without a reply, or with --down-status
503 or 529 answered that status; then the scenario goes on.

--cassette FILE, instead of a scenario, replays a session recorded with
nightshift sim proxy --record FILE: each request gets the recorded reply of
the same conversation, a retried one the next recorded attempt
(docs/cassettes.md).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("sim serve takes no arguments; give the scenario as --scenario FILE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cassetteFile != "" {
				if scenario != "" {
					return usagef("sim serve plays a --scenario or a --cassette, not both: give one")
				}
				return serveCassette(cmd, cassetteFile, addr, &lim)
			}
			if scenario == "" {
				return usagef("sim serve needs --scenario FILE (the format is in docs/scenarios.md), or --cassette FILE to replay a recorded session")
			}
			sc, err := scripted.Load(scenario)
			if err != nil {
				return scenarioError(scenario, err)
			}
			if err := checkAddr(addr); err != nil {
				return err
			}
			if err := down.apply(cmd, sc); err != nil {
				return err
			}
			if lim.limit != 0 || cmd.Flags().Changed("per") || lim.noHeaders {
				return lim.serve(cmd, scripted.NewServer(sc, scripted.ServerConfig{Log: cmd.ErrOrStderr(), ForgetRequests: true}), addr)
			}
			return scripted.Serve(cmd.Context(), sc, addr, dataOut(cmd), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&scenario, "scenario", "", "scenario file to play (YAML or JSON; see docs/scenarios.md)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	cmd.Flags().StringVar(&cassetteFile, "cassette", "", "replay this recorded session (nightshift sim proxy --record) instead of a scenario; docs/cassettes.md")
	lim.addFlags(cmd)
	down.addFlags(cmd)
	return cmd
}

// checkAddr refuses an --addr that cannot be listened on as written (it
// was the listener's "missing port in address", exit 1).
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return usagef("--addr %q: want HOST:PORT, for example 127.0.0.1:8080 (port 0 picks a free one)", addr)
	}
	return nil
}
