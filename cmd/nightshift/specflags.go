package main

import (
	"reflect"

	"github.com/nightshift-dev/nightshift/runspec"
)

// doc is a flag's doc line, from the run spec's table: the one place it
// is written (runspec.Table).
func doc(flag string) string {
	o, ok := runspec.ByFlag(flag)
	if !ok {
		panic("cmd/nightshift: --" + flag + " has no row in runspec.Table")
	}
	return o.Doc
}

// flagSpec is the run spec the flags of run and batch say, their
// defaults included: the one place a flag's value becomes a field of the
// spec. Process flags (--dir, --events, --state-dir, ...) are not in it.
func (f *runFlags) flagSpec() runspec.Spec {
	var s runspec.Spec
	s.Provider, s.ModelName, s.BaseURL, s.Scenario, s.Stream, s.MaxTokensField = f.provider, f.model, f.baseURL, f.scenario, f.stream, f.maxTokensField
	s.FallbackModel, s.FallbackOn = f.fallbackModel, f.fallbackOn
	s.MaxSteps, s.MaxTokens, s.Retries = f.maxSteps, f.maxTokens, &f.retries
	s.Backoff, s.RetryBudget, s.RPM, s.TPM = runspec.Duration(f.backoff), runspec.Duration(f.retryBudget), f.rpm, f.tpm
	s.BudgetUSD, s.BudgetTokens, s.Timeout = f.budgetUSD, f.budgetTokens, runspec.Duration(f.timeout)
	s.BreakerFailures, s.BreakerCool = f.breakerFailures, runspec.Duration(f.breakerCool)
	stall, call := runspec.Duration(f.stall), runspec.Duration(f.callTimeout)
	s.Stall, s.CallTimeout, s.LoopLimit, s.MaxCallsPerReply = &stall, &call, &f.loopLimit, f.maxCallsPerReply
	s.Checks, s.NoJudge, s.JudgeModel, s.MaxVerifyRounds, s.OutputSchema = f.checks, f.noJudge, f.judgeModel, f.maxVerifyRounds, f.outputSchema
	if f.noClaims {
		off := false
		s.Claims = &off // --no-claims is claims: false; not given, the task's own
	}
	s.Approve = f.approve
	s.Sandbox, s.SandboxNet, s.Env, s.CommandTimeout = f.sandbox, f.sandboxNet, f.env, runspec.Duration(f.commandTimeout)
	s.MaxFileSize = f.maxFileSize
	s.NoCache, s.ContextWindow, s.ModelsFile = f.noCache, f.contextWindow, f.modelsFile
	e := f.eco
	s.MCPTrust = e.mcpTrust
	s.MCPFlags, s.MCPClass, s.MCPEnv, s.Subagents, s.SubagentSteps, s.Memory = e.mcp, e.mcpClass, e.mcpEnv, e.subagents, e.subagentSteps, e.memory
	s.Otel, s.OtelFile, s.OtelContent = e.otel, e.otelFile, e.otelContent
	s.Keep, s.RollbackOnInterrupt = f.keep, f.rollbackOnInterrupt
	return s
}

// overlay lays the flags' spec over a task's, row by row of the table: a
// field the task leaves unset takes the flag's value (its default, when
// not given); a field both set takes the flag's when wins says so (run:
// every flag given on the command line); a list flag (--check, --approve,
// --env) adds to the task's own list.
func overlay(task *runspec.Spec, flags runspec.Spec, wins func(flag string) bool) {
	for _, o := range runspec.Table {
		if o.Field == "" || o.Flag == "" {
			continue
		}
		dst, src := o.Value(task), o.Value(&flags)
		switch {
		case dst.Kind() == reflect.Slice:
			merged := reflect.AppendSlice(reflect.MakeSlice(dst.Type(), 0, dst.Len()+src.Len()), dst)
			dst.Set(reflect.AppendSlice(merged, src))
		case dst.IsZero() || wins(o.Flag):
			if src.Kind() == reflect.Pointer && !src.IsNil() {
				// A copy: the task's spec must not share the flag's
				// variable.
				cp := reflect.New(src.Type().Elem())
				cp.Elem().Set(src.Elem())
				src = cp
			}
			dst.Set(src)
		}
	}
}
