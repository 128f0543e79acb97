package mcp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// A launch is how a stdio server starts, fixed before the run: its
// program's absolute path, its arguments, the folder it starts in and its
// environment. A restart during the run starts the same program: what a
// run wrote since cannot take its place.
type launch struct {
	argv []string
	dir  string
	env  []string
	// inWorkspace marks a server the person trusts with the workspace
	// (Server.TrustWorkspace): it starts there, as it asked.
	inWorkspace bool
}

// ErrInWorkspace is matched by the error of Open for a stdio server whose
// program, a file its arguments name, or a folder its environment points
// to, lies inside the workspace, where the run's commands and tools can
// change it before nightshift starts it again, with the user's rights. It
// matches ErrConfig too.
var ErrInWorkspace = errors.New("MCP server would start what the workspace holds")

type inWorkspaceError struct{ msg string }

func (e *inWorkspaceError) Error() string { return e.msg }
func (e *inWorkspaceError) Is(target error) bool {
	return target == ErrInWorkspace || target == ErrConfig
}

// resolve fixes the launch of the stdio server s, started in start (a
// folder outside the workspace ws), with the environment env. The program
// is found in env's PATH, whose relative and empty entries (the start
// folder's) are dropped, and so, unless s.TrustWorkspace, are its entries
// inside the workspace. An argument spelt as a relative path (".",
// "./x", "../x") is made absolute from the workspace, where servers
// started before: the filesystem server's "." is the workspace still.
//
// Unless s.TrustWorkspace, the server is refused (ErrInWorkspace) when
// anything it would run is in the workspace: its program (a planted
// ./node_modules/.bin/x, a symlink into the workspace), a file an
// argument names (node ./server.js, python3 srv.py: a bare name is read
// from the workspace too), a folder of it given to a program that runs
// code from folders (node ., python3 pkg, go run .), the package a
// package runner runs when it is a path there (npx ./pkg), the module of
// `python -m mod` (mod.py or mod/ there), or a place a variable that
// loads code names (loadsCode: PYTHONPATH, NODE_PATH, NODE_OPTIONS=
// --require ..., LD_PRELOAD, HOME). Otherwise a folder
// of the workspace as an argument is data (the filesystem server's "."),
// and a package runner looks for its package from the start folder, never
// in the workspace's node_modules.
func resolve(s Server, ws, start string, env []string) (launch, error) {
	l := launch{dir: start, inWorkspace: s.TrustWorkspace}
	if s.TrustWorkspace {
		l.dir = ws
	}
	env = slices.Clone(env)
	path, _ := lookup(env, "PATH")
	var search, keep []string
	for _, p := range filepath.SplitList(path) {
		if p == "" || !filepath.IsAbs(p) {
			continue // the start folder: nothing to find there
		}
		search = append(search, p)
		if s.TrustWorkspace || !within(p, ws) {
			keep = append(keep, p)
		}
	}
	env = setEnv(env, "PATH", strings.Join(keep, string(filepath.ListSeparator)))
	l.env = env

	prog, err := findProgram(s.Command[0], search)
	if err != nil {
		return launch{}, configError("server %s: its program %q: %v", s.Name, s.Command[0], err)
	}
	if s.TrustWorkspace {
		l.argv = append([]string{prog}, s.Command[1:]...)
		return l, nil
	}
	// What was relative to the workspace, where servers started, is
	// made so explicitly: the filesystem server's "." stays the
	// workspace.
	args := make([]string, len(s.Command)-1)
	for i, a := range s.Command[1:] {
		args[i] = absArg(a, ws)
	}
	l.argv = append([]string{prog}, args...)
	refuse := func(what string) error {
		return &inWorkspaceError{fmt.Sprintf("%v: server %s: %s, inside the workspace %s, where a run's commands and tools can change it, and nightshift would start it with your rights; "+
			"give a program and files outside the workspace, or, if you trust what the workspace holds for this server, say so by its name: --mcp-trust %s on the command line, or trust_workspace: true under %s in a task file's or a pipeline's mcp:",
			ErrConfig, s.Name, what, ws, s.Name, s.Name)}
	}
	if real, err := filepath.EvalSymlinks(prog); within(prog, ws) || err == nil && within(real, ws) {
		return launch{}, refuse(fmt.Sprintf("its program %s is %s", s.Command[0], cmpOr(real, prog)))
	}
	script := scriptArg(prog, args)
	for i, a := range args {
		for _, cand := range argPaths(a) {
			if !filepath.IsAbs(cand) {
				// A bare name was relative to the workspace before:
				// refused rather than silently not found.
				cand = filepath.Join(ws, cand)
			}
			switch kind := pathIn(cand, ws); {
			case kind == inFile:
				return launch{}, refuse(fmt.Sprintf("its argument %q names the file %s", s.Command[1+i], cand))
			case kind == inFolder && i == script:
				return launch{}, refuse(fmt.Sprintf("its argument %q names the folder %s, which %s runs code from", s.Command[1+i], cand, filepath.Base(prog)))
			}
		}
		if m, ok := pythonModule(prog, args, i); ok {
			for _, cand := range []string{filepath.Join(ws, m+".py"), filepath.Join(ws, m)} {
				if _, err := os.Lstat(cand); err == nil {
					return launch{}, refuse(fmt.Sprintf("`-m %s` would import %s", strings.ReplaceAll(m, string(filepath.Separator), "."), cand))
				}
			}
		}
	}
	for _, spec := range packageSpecs(prog, args) {
		p, _ := strings.CutPrefix(spec, "file:")
		if !filepath.IsAbs(p) {
			continue // a registry's name: fetched, not looked up in the workspace
		}
		if within(filepath.Clean(p), ws) {
			return launch{}, refuse(fmt.Sprintf("the package %q it runs is %s", spec, p))
		}
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !loadsCode(name) {
			continue
		}
		for _, tok := range pathTokens.FindAllString(value, -1) {
			if within(filepath.Clean(tok), ws) {
				return launch{}, refuse(fmt.Sprintf("its variable %s names %s", name, tok))
			}
		}
	}
	return l, nil
}

// absArg makes an argument that is a relative path by its spelling (".",
// "..", "./x", "../x", or such a value of --flag=VALUE) absolute, from the
// workspace.
func absArg(a, ws string) string {
	rel := func(v string) bool {
		return v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../")
	}
	if rel(a) {
		return filepath.Join(ws, a)
	}
	if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") && rel(v) {
		return k + "=" + filepath.Join(ws, v)
	}
	return a
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Where a path lies, for pathIn.
const (
	notIn = iota
	inFile
	inFolder
)

// pathIn says whether p exists inside ws (with its symlinks followed),
// and whether as a file or a folder.
func pathIn(p, ws string) int {
	fi, err := os.Stat(p)
	if err != nil {
		return notIn
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !within(real, ws) && !within(p, ws) {
		return notIn
	}
	if fi.IsDir() {
		return inFolder
	}
	return inFile
}

// Programs that run code from the folder (or file) they are given:
// interpreters take it as their first argument that is not an option
// (node ., python3 pkg/), tool chains after their run subcommand (go run
// ., deno run ., bun run ., uv run ., cargo run, dotnet run).
var (
	interpreterRE = lazyregexp.New(`^(node|nodejs|python|pypy|ruby|perl|php|sh|bash|dash|zsh|ksh|java)[0-9.]*$`)
	toolchainRE   = lazyregexp.New(`^(go|deno|bun|uv|cargo|dotnet)[0-9.]*$`)
)

// scriptArg returns the index in args of what prog runs as code (its
// script or package folder), or -1.
func scriptArg(prog string, args []string) int {
	base := filepath.Base(prog)
	from := 0
	switch {
	case interpreterRE.MatchString(base):
	case toolchainRE.MatchString(base):
		run := slices.Index(args, "run")
		if run < 0 {
			return -1
		}
		from = run + 1
	default:
		return -1
	}
	for i := from; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-m" || a == "-c" || a == "-e" || a == "--eval":
			return -1 // a module or code on the command line (-m is read by pythonModule)
		case a == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		case !strings.HasPrefix(a, "-"):
			return i
		}
	}
	return -1
}

// packageSpecs returns the packages that a package runner fetches and
// runs: npx, pnpx, bunx, uvx, pipx run, npm exec, pnpm dlx, yarn dlx,
// uv tool run. Their first argument that is not an option, and the
// values of -p/--package/--from/--with. The arguments after the package
// are its own: a folder there is the server's data (the filesystem
// server's "."), not code.
func packageSpecs(prog string, args []string) []string {
	base := filepath.Base(prog)
	switch {
	case base == "npx" || base == "pnpx" || base == "bunx" || base == "uvx":
	case base == "pipx" && len(args) > 0 && args[0] == "run",
		base == "npm" && len(args) > 0 && (args[0] == "exec" || args[0] == "x"),
		(base == "pnpm" || base == "yarn") && len(args) > 0 && args[0] == "dlx":
		args = args[1:]
	case base == "uv" && len(args) > 1 && args[0] == "tool" && args[1] == "run":
		args = args[2:]
	default:
		return nil
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				out = append(out, args[i+1])
			}
			return out
		case a == "-p" || a == "--package" || a == "--from" || a == "--with":
			if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "--package=") || strings.HasPrefix(a, "--from=") || strings.HasPrefix(a, "--with="):
			_, v, _ := strings.Cut(a, "=")
			out = append(out, v)
		case strings.HasPrefix(a, "-"):
		default:
			return append(out, a)
		}
	}
	return out
}

// findProgram returns the absolute path of the program p: a path made
// absolute (from the folder nightshift started in, where it was written),
// or a bare name looked up in the folders of path.
func findProgram(p string, path []string) (string, error) {
	if strings.ContainsRune(p, filepath.Separator) {
		return filepath.Abs(p)
	}
	for _, dir := range path {
		cand := filepath.Join(dir, p)
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return cand, nil
		}
	}
	return "", fmt.Errorf("not found in PATH (%s)", strings.Join(path, string(filepath.ListSeparator)))
}

// argPaths returns the paths an argument may name: itself, and the value
// of --flag=value.
func argPaths(a string) []string {
	if a == "" || strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
		return nil
	}
	out := []string{a}
	if _, v, ok := strings.Cut(a, "="); ok && v != "" {
		out = append(out, v)
	}
	return out
}

// pythonRE matches the programs that take -m MODULE: python, python3,
// python3.12, pypy3.
var pythonRE = lazyregexp.New(`^(python|pypy)[0-9.]*$`)

// pythonModule returns the module of `python -m mod` as a relative path
// (a/b for a.b) when the argument at i is that -m.
func pythonModule(prog string, args []string, i int) (string, bool) {
	if !pythonRE.MatchString(filepath.Base(prog)) {
		return "", false
	}
	var mod string
	switch a := args[i]; {
	case a == "-m" && i+1 < len(args):
		mod = args[i+1]
	case strings.HasPrefix(a, "-m") && len(a) > 2 && !strings.HasPrefix(a, "--"):
		mod = a[2:]
	default:
		return "", false
	}
	if mod == "" || strings.ContainsAny(mod, `/\`) {
		return "", false
	}
	return filepath.Join(strings.Split(mod, ".")...), true
}

// codeVars are the variables that tell a program where to load code or
// its configuration from, beside those loadsCode knows by their ending.
var codeVars = []string{
	"NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "LD_PRELOAD", "PERL5OPT", "RUBYOPT",
	"BASH_ENV", "ENV", "ZDOTDIR", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS",
	"GEM_HOME", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GOFLAGS", "GOROOT", "DENO_DIR",
	"BUN_INSTALL", "VIRTUAL_ENV", "CONDA_PREFIX", "PIPX_HOME", "UV_TOOL_DIR",
}

// loadsCode reports whether the variable name tells a program where to
// load code or configuration from: codeVars, a search path (…PATH but
// PATH itself, which resolve cleans), a library path (…LIB), or npm's,
// pip's and uv's settings.
func loadsCode(name string) bool {
	u := strings.ToUpper(name)
	return slices.Contains(codeVars, u) || u != "PATH" && strings.HasSuffix(u, "PATH") || strings.HasSuffix(u, "LIB") ||
		strings.HasPrefix(u, "NPM_CONFIG_") || strings.HasPrefix(u, "PIP_") || strings.HasPrefix(u, "UV_")
}

// pathTokens finds the absolute paths in a variable's value: a value is
// often a list (a:b), a set of flags (--require /x.js) or both.
var pathTokens = lazyregexp.New(`/[^:;\s="']*`)

// within reports whether p is dir or lies inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// setEnv sets name in env, in place of what it was.
func setEnv(env []string, name, value string) []string {
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	return append(env, name+"="+value)
}

// startFolder makes the folder stdio servers start in: empty but for a
// package.json, so that npx and its kin, looking up from there for a
// project, find this one and nothing else, and read-only, so that a
// server that writes where it started (a relative path before the
// workspace is known to it) fails rather than writes there.
func startFolder(parent string) (string, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, "mcp-start-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte("{\"private\": true}\n"), 0o444); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// removeStartFolder removes what startFolder made.
func removeStartFolder(dir string) {
	if dir == "" {
		return
	}
	os.Chmod(dir, 0o700) //nolint:errcheck // RemoveAll says what is left
	os.RemoveAll(dir)
}
