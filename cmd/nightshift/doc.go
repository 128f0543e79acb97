// Command nightshift runs LLM agents unattended and makes their failures
// routine, scheduled work.
//
// One file per subcommand; main.go alone turns errors into exit statuses
// (0 done, 2 usage, 3 step-limit, 4 unverified, 5 api-failure,
// 6 truncated, 7 needs-recovery, 8 not-all-done, 9 budget, 10 timeout,
// 11 unavailable, 12 busy, 13 context-full, 130 interrupted, 1 else).
//
//	nightshift demo                               # scripted sessions, no key
//	nightshift run --dir project "TASK"           # one task to one outcome
//	nightshift batch --tasks tasks.yaml --parallel 8
//	nightshift night --pipeline pipeline.yaml --db night.db
//	nightshift report --db night.db
//	nightshift sim serve --scenario s.yaml        # the scripted model over HTTP
//	nightshift eval                               # measure the judge
//	nightshift recover --dir project              # after a run died midway
//	nightshift version                            # module version and commit
//
// See README.md.
package main
