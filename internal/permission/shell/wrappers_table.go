package shell

import "sync"

// wrapper is one wrapper the analysis looks through: how it runs the
// wrapped command, every option it takes (in getopt notation: an option
// missing from opts makes the line unknown), and what its options do.
type wrapper struct {
	kind wrapKind
	opts optSpec
	// readOnly: the wrapper only runs the command (it changes no
	// privilege, runs no shell code and writes nothing), so a read-only
	// command stays read-only under it when every option given is in ro.
	readOnly bool
	ro       string
	// paths are the options whose value is a path, by name.
	paths map[string]PathAccess

	roSet map[string]bool // ro as a set; built by compileWrappers
}

// wrappers maps a wrapper (its base name, folded) to how it runs the
// command it wraps. Shells (sh -c CODE) are handled apart. Left out of the
// read-only ones on purpose: env -i, -u and "-" (they drop the variables
// aidex sets to keep git from running configured programs), env -S
// (shell words), env NAME=value with a name outside envReadOnlyNames,
// nohup (writes nohup.out), time -o (writes), xargs -p/-o (the terminal),
// sudo, doas, su, exec, strace, ltrace, watch, busybox. Built on first use
// (start-up cost, issue 21).
var wrappers = sync.OnceValue(func() map[string]*wrapper {
	return compileWrappers(map[string]*wrapper{
		"nohup":    {kind: wrapRest, opts: optSpec{long: "help version"}},
		"builtin":  {kind: wrapRest, readOnly: true},
		"busybox":  {kind: wrapRest, opts: optSpec{long: "help list list-full"}},
		"toybox":   {kind: wrapRest, opts: optSpec{long: "help version"}},
		"unbuffer": {kind: wrapRest, opts: optSpec{short: "p"}},
		"chronic":  {kind: wrapRest, opts: optSpec{short: "ev"}},
		"command":  {kind: wrapRest, opts: optSpec{short: "pvV"}, readOnly: true, ro: "-p -v -V"},
		"setsid":   {kind: wrapRest, opts: optSpec{short: "cfw", long: "ctty fork wait help version"}},
		"time": {kind: wrapRest, opts: optSpec{short: "o:f:apqv", long: "output: format: append portability quiet verbose " +
			"help version"}, readOnly: true, ro: "-f -p -q -v --format --portability --quiet --verbose",
			paths: map[string]PathAccess{"-o": PathWrite, "--output": PathWrite}},
		"nice": {kind: wrapRest, opts: optSpec{short: "n:", long: "adjustment: help version", num: true}, readOnly: true,
			ro: "-n -N --adjustment"},
		"exec": {kind: wrapRest, opts: optSpec{short: "a:cl"}},
		"stdbuf": {kind: wrapRest, opts: optSpec{short: "i:o:e:", long: "input: output: error: help version"}, readOnly: true,
			ro: "-i -o -e --input --output --error"},
		"ionice": {kind: wrapRest, opts: optSpec{short: "c:n:p:P:tu:", long: "class: classdata: pid: pgid: ignore uid: help version"}},
		"strace": {kind: wrapRest, opts: optSpec{short: "a:AbcCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ", long: "output: " +
			"output-separately append-output attach: trace: trace-path: signal: status: quiet:: decode-fds:: decode-pids: " +
			"string-limit: env: user: summary summary-only summary-columns: summary-sort-by: summary-syscall-overhead: " +
			"summary-wall-clock syscall-times:: timestamps:: absolute-timestamps:: relative-timestamps:: follow-forks " +
			"daemonize:: instruction-pointer stack-trace interruptible: columns: seccomp-bpf tips:: no-abbrev abbrev: " +
			"verbose: raw: read: write: inject: fault: kvm: argv0: secontext:: silence: successful-only failed-only " +
			"const-print-style: detach-on: kill-on-exit debug help version"},
			paths: map[string]PathAccess{"-o": PathWrite, "--output": PathWrite}},
		"ltrace": {kind: wrapRest, opts: optSpec{short: "a:A:bcCdD:e:E:fF:hil:L:n:o:p:r:s:St:Tu:Vw:x:", long: "align: config: " +
			"demangle debug: help indent: library: output: version where:"},
			paths: map[string]PathAccess{"-o": PathWrite, "--output": PathWrite, "-F": PathRead, "--config": PathRead}},
		"timeout": {kind: wrapTimeout, opts: optSpec{short: "k:s:v", long: "kill-after: signal: preserve-status foreground " +
			"verbose help version"}, readOnly: true,
			ro: "-k -s -v --kill-after --signal --preserve-status --foreground --verbose"},
		"sudo": {kind: wrapPrivilege, opts: optSpec{short: "Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv", long: "askpass " +
			"auth-type: background bell close-from: chdir: preserve-env:: edit group: set-home help host: login " +
			"remove-timestamp reset-timestamp list non-interactive preserve-groups prompt: chroot: role: stdin shell type: " +
			"command-timeout: other-user: user: version validate login-class:"},
			paths: map[string]PathAccess{"-D": PathChdir, "--chdir": PathChdir, "-R": PathChdir, "--chroot": PathChdir}},
		"doas": {kind: wrapPrivilege, opts: optSpec{short: "a:C:Lnsu:"}, paths: map[string]PathAccess{"-C": PathRead}},
		"su":   {kind: wrapSu},
		"env": {kind: wrapEnv, opts: optSpec{short: "iu:C:S:0va:", long: "ignore-environment null unset: chdir: split-string: " +
			"block-signal:: default-signal:: ignore-signal:: list-signal-handling debug argv0: help version"},
			readOnly: true, ro: "-C --chdir -0 --null -v --debug",
			paths: map[string]PathAccess{"-C": PathChdir, "--chdir": PathChdir}},
		"xargs": {kind: wrapXargs, opts: optSpec{short: "0a:d:E:e::I:i::L:l::n:oP:prs:tx", long: "null arg-file: delimiter: " +
			"eof:: replace:: max-lines:: max-args: open-tty max-procs: interactive no-run-if-empty max-chars: verbose exit " +
			"process-slot-var: show-limits help version"}, readOnly: true,
			ro: "-0 -a -d -E -e -I -i -L -l -n -P -r -s -t -x --null --arg-file --delimiter --eof --replace --max-lines " +
				"--max-args --max-procs --no-run-if-empty --max-chars --verbose --exit",
			paths: map[string]PathAccess{"-a": PathList, "--arg-file": PathList}},
		"watch": {kind: wrapWatch, opts: optSpec{short: "bcCd::egn:pq:rs:twxhv", long: "beep color no-color differences:: " +
			"errexit chgexit interval: precise equexit: no-rerun shotsdir: no-title no-wrap exec help version"},
			paths: map[string]PathAccess{"-s": PathWrite, "--shotsdir": PathWrite}},
		"eval": {kind: wrapEval},
	})
})

// envReadOnlyNames are the variables env NAME=value may set and keep a
// read-only command read-only: they change how output looks, not what
// runs or which files are read. envReadOnlyPrefixes are families of them.
var (
	envReadOnlyNames    = set("LANG LANGUAGE TZ NO_COLOR TERM COLUMNS LINES")
	envReadOnlyPrefixes = [...]string{"LC_"}
)

func envKeepsReadOnly(name string) bool {
	return envReadOnlyNames[name] || hasAnyPrefix(name, envReadOnlyPrefixes[:])
}

func compileWrappers(m map[string]*wrapper) map[string]*wrapper {
	for _, w := range m {
		w.opts.compile()
		w.roSet = set(w.ro)
	}
	return m
}

// wrapperOptions reads a wrapper's options as its getopt does, records
// the files its options write, and returns the context of the wrapped
// command (path options added; read-only-transparent only when every
// option is in the allowlist) with what parse found.
func (z *analyzer) wrapperOptions(sc SimpleCommand, c actx, label string, w *wrapper) (actx, parsed) {
	p := w.opts.parse(sc.Words, 1, true)
	nc := nested(c, label)
	if p.unknown != "" {
		z.opaque(label + " with the option " + p.unknown + ", which aidex does not know")
	}
	vetted := w.readOnly && p.unknown == "" && !p.nonLiteral
	paths := append([]OptionPath(nil), c.optPaths...)
	for _, o := range p.opts {
		vetted = vetted && w.roSet[o.name]
		acc, ok := w.paths[o.name]
		switch {
		case !ok || !o.has:
		case acc == PathWrite:
			z.a.Writes = append(z.a.Writes, Target{Op: label + " " + o.name, Word: o.value})
		default:
			paths = append(paths, OptionPath{Option: o.shown, Word: o.value, Access: acc})
		}
	}
	nc.optPaths = paths
	nc.wrapTaint = c.wrapTaint || !vetted
	return nc, p
}

// nonLiteralWrapper reports a wrapper whose options are built at run
// time: where the wrapped command starts is unknown.
func (z *analyzer) nonLiteralWrapper(sc SimpleCommand, c actx, label string) bool {
	z.opaque(label + " with non-literal options")
	sc.NonLiteral = true
	markSuspicious(&sc, label+" with non-literal options")
	z.add(sc, c)
	return true
}
