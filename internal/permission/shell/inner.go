package shell

import "strings"

// innerKind says how a command embeds other commands in its arguments.
type innerKind uint8

const (
	innerOptions innerKind = iota + 1 // the values of the listed options are shell code
	innerFind                         // find -exec/-execdir/-ok/-okdir COMMAND ; (or +)
	innerTar                          // the listed options, and --checkpoint-action=exec=CODE
	innerSSH                          // -o ProxyCommand=CODE / LocalCommand=CODE
	innerEditor                       // vim -c ':!CODE', +CODE
	innerGit                          // git -c KEY=CODE, --upload-pack=CODE, ext::CODE
)

// innerSpec is how one command runs other commands given in its options.
type innerSpec struct {
	kind  innerKind
	label string   // wrapper label of the inner commands ("go -exec")
	opts  []string // options whose value is shell code
}

var (
	tarInner    = innerSpec{innerTar, "tar command", []string{"--to-command", "-I", "--use-compress-program", "--info-script", "-F", "--new-volume-script", "--rsh-command"}}
	editorInner = innerSpec{kind: innerEditor}
	sshInner    = innerSpec{kind: innerSSH}
)

// innerCommandSpecs maps a command (its base name, folded) to how it runs
// the commands embedded in its options.
var innerCommandSpecs = map[string]innerSpec{
	"find":    {kind: innerFind},
	"go":      {innerOptions, "go -exec", []string{"-exec", "--exec", "-toolexec", "--toolexec", "-vettool", "--vettool"}},
	"rg":      {innerOptions, "rg --pre", []string{"--pre"}},
	"tar":     tarInner,
	"gtar":    tarInner,
	"bsdtar":  tarInner,
	"rsync":   {innerOptions, "rsync -e", []string{"-e", "--rsh", "--rsync-path"}},
	"ssh":     sshInner,
	"scp":     sshInner,
	"sftp":    sshInner,
	"script":  {innerOptions, "script -c", []string{"-c", "--command"}},
	"flock":   {innerOptions, "flock -c", []string{"-c", "--command"}},
	"zip":     {innerOptions, "zip -TT", []string{"-TT", "--unzip-command"}},
	"vim":     editorInner,
	"vi":      editorInner,
	"nvim":    editorInner,
	"view":    editorInner,
	"ex":      editorInner,
	"vimdiff": editorInner,
	"gvim":    editorInner,
	"git":     {kind: innerGit},
}

// innerCommands extracts commands embedded in a command's options:
// find -exec, go test -exec/-toolexec, rg --pre, git -c, vim -c :!cmd,
// tar --to-command, rsync -e, ssh -o ProxyCommand, script -c, flock -c.
func (z *analyzer) innerCommands(sc SimpleCommand, c actx) {
	if sc.NonLiteral {
		return
	}
	if z.builtinCode(sc.FoldedBase(), sc.Words, c) {
		return
	}
	spec, ok := innerCommandSpecs[sc.FoldedBase()]
	if !ok {
		return
	}
	words := sc.Words
	switch spec.kind {
	case innerOptions:
		z.optionCode(words, c, spec.label, spec.opts)
	case innerFind:
		z.findExec(words, c)
	case innerTar:
		z.optionCode(words, c, spec.label, spec.opts)
		z.tarCheckpoint(words, c)
		if len(words) > 1 && !strings.HasPrefix(words[1].Pattern, "-") && strings.ContainsAny(words[1].Pattern, "IF") {
			z.opaque("tar old-style options (" + words[1].Value + ") that run a program")
		}
	case innerSSH:
		z.sshCommands(words, c)
	case innerEditor:
		z.editorCommands(words, c)
	case innerGit:
		z.gitCommands(words, c)
	}
}

// tarCheckpoint parses --checkpoint-action=exec=CODE (or an abbreviation).
func (z *analyzer) tarCheckpoint(words []Word, c actx) {
	for _, w := range optionValues(words, 1, []string{"--checkpoint-action"}, false) {
		if v, ok := strings.CutPrefix(w.Pattern, "exec="); ok {
			z.shellString(valueAfter(w, "exec="), nested(c, "tar --checkpoint-action"))
		} else if !w.Literal && strings.HasPrefix(v, "*") {
			z.opaque("tar --checkpoint-action built at run time")
		}
	}
}

// sshCommands parses -o ProxyCommand=CODE and -o LocalCommand=CODE.
func (z *analyzer) sshCommands(words []Word, c actx) {
	for i := 1; i < len(words); i++ {
		v := words[i].Value
		if v == "-o" && i+1 < len(words) {
			i++
			v = words[i].Value
		} else if !strings.HasPrefix(v, "-o") {
			continue
		} else {
			v = v[2:]
		}
		if k, val, ok := strings.Cut(v, "="); ok && (strings.EqualFold(k, "ProxyCommand") || strings.EqualFold(k, "LocalCommand")) {
			z.parseAndWalk(val, nested(c, "ssh "+k))
		}
	}
}

func (z *analyzer) findExec(words []Word, c actx) {
	c.input, c.replace = "find -exec", "{}"
	for i := 1; i < len(words); i++ {
		switch words[i].Value {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(words) && words[j].Value != ";" && words[j].Value != "+" {
				j++
			}
			if j > i+1 {
				z.simple(words[i+1:j], nested(c, "find "+words[i].Value), nil, nil)
			}
			i = j
		}
	}
}

// optionCode parses the value of the given options as shell code; long
// options match by prefix and one-letter options in bundles (see
// optionValues).
func (z *analyzer) optionCode(words []Word, c actx, label string, opts []string) {
	for _, code := range optionValues(words, 1, opts, false) {
		z.shellString(code, nested(c, label))
	}
}

func (z *analyzer) editorCommands(words []Word, c actx) {
	for i := 1; i < len(words); i++ {
		v := words[i].Value
		var cmd string
		switch {
		case (v == "-c" || v == "--cmd") && i+1 < len(words):
			cmd = words[i+1].Value
			i++
		case strings.HasPrefix(v, "+"):
			cmd = v[1:]
		default:
			continue
		}
		cmd = strings.TrimLeft(strings.TrimSpace(cmd), ":")
		if code, ok := strings.CutPrefix(cmd, "!"); ok {
			z.parseAndWalk(code, nested(c, "editor :!"))
		} else if strings.HasPrefix(cmd, "sh") || strings.HasPrefix(cmd, "term") || strings.HasPrefix(cmd, "r !") {
			z.opaque("editor runs a shell: " + cmd)
		}
	}
}

func (z *analyzer) gitCommands(words []Word, c actx) {
	for i := 1; i < len(words); i++ {
		w := words[i]
		v := w.Value
		switch {
		case v == "-c" && i+1 < len(words):
			z.gitConfig(words[i+1], c)
			i++
		case strings.HasPrefix(v, "-c") && len(v) > 2:
			z.gitConfig(literalWord(v[2:]), c)
		case longPrefixOf(strings.SplitN(w.Pattern, "=", 2)[0], "--config-env"):
			z.opaque("git --config-env sets configuration from the environment")
		case v == "-u" && i+1 < len(words):
			z.shellString(words[i+1], nested(c, "git "+v))
			i++
		case strings.HasPrefix(w.Pattern, "--exec-path="):
			z.opaque("git --exec-path runs git programs from another directory")
		case strings.HasPrefix(v, "ext::"):
			z.parseAndWalk(strings.TrimPrefix(v, "ext::"), nested(c, "git ext:: transport"))
		}
	}
	for _, code := range optionValues(words, 1, gitPackOptions, false) {
		z.shellString(code, nested(c, "git transport program"))
	}
	z.gitSubcommandCode(words, c)
}

// gitPackOptions run the program they name on the other side of a
// transport (git fetch --upload-pack=CODE, git archive --exec=CODE).
var gitPackOptions = []string{"--upload-pack", "--receive-pack", "--exec"}

func (z *analyzer) gitConfig(w Word, c actx) {
	if !w.Literal {
		z.opaque("git -c with a value built at run time")
		return
	}
	key, val, _ := strings.Cut(w.Value, "=")
	if !isGitExecKey(key) {
		return
	}
	z.opaque("git -c " + key + " can run a command")
	val = strings.TrimPrefix(strings.TrimSpace(val), "!")
	if val != "" {
		z.parseAndWalk(val, nested(c, "git -c "+key))
	}
}
