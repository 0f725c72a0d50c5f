package shell

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// Issue 43, class 1: an option whose value is a file listing more inputs
// (or a mode reading such names from standard input) makes the command
// unknown: the names inside the list are read at run time.

// listInput reports the first command of line that reads names of inputs
// at run time, and why.
func listInput(line string) (string, bool) {
	for _, sc := range Analyze(line).Commands {
		if why, ok := HasListInput(sc); ok {
			return sc.Name + ": " + why, true
		}
	}
	return "", false
}

func TestListFileOptionsAreUnknown(t *testing.T) {
	for _, line := range []string{
		// The read-only tables: sort, wc, du, find, tar, file, checksum tools.
		"sort --files0-from=list", "sort --files0-from list", "sort --files0=list", "sort -n --files0-from=- < l",
		"wc --files0-from=list", "wc -l --files0-from list", "wc --files0-fr=list", "du --files0-from=list -s",
		"du -sh --files0-from list", "find -files0-from list", "find -files0-from list -name x -print",
		"tar -tf x.tar -T list", "tar -tT list -f x.tar", "tar -tvT list -f x.tar", "tar tfT x.tar list",
		"tar -tf x.tar --files-from=list", "tar -tf x.tar --files-from list", "tar --files-f=list -tf x.tar",
		"tar -tf x.tar --null -T -", "bsdtar -tf x.tar -T list", "gtar -cf out.tar -T list", "tar cfT out.tar list",
		"file -f list", "file -bf list", "file --files-from list", "file --files-from=-",
		"sha256sum -c sums", "sha256sum --check sums", "sha256sum --ch sums", "md5sum -c", "sha1sum -wc sums",
		"b2sum --check --quiet sums", "cksum -a sha256 -c sums", "shasum -a 256 -c sums",
		// Wrappers: xargs -a, and xargs' input for a command that reads files.
		"xargs -a list cat", "xargs --arg-file=list grep x", "xargs --arg-f list wc -l", "xargs -0a list cat",
		"xargs cat < list", "cat list | xargs cat", "find . -print0 | xargs -0 grep -l x", "xargs -I{} cat {} < list",
		// Commands outside the read-only tables, and the generic spellings.
		"rsync -a --files-from=list . out/", "rsync -a --files-from list . out/", "rsync -a --files-f=list / out/",
		"git add --pathspec-from-file=list", "git commit --pathspec-from-file list -m x", "git -C sub rm --pathspec-from-file=-",
		"git reset --pathspec-fr=list", "mytool --files-from=list", "mytool --files0-from list", "mytool -files-from list",
		"mytool --arg-file=list", "mytool --args-file list", "mytool --file-list=list", "zip out.zip -@ < list",
		"zip -r@ out.zip", "zip --names-stdin out.zip", "cpio -o < list > out.cpio", "cpio -ov > out.cpio", "cpio -pdm dst < list",
		"cpio --create < list", "gcc @args", "gcc -O2 @opts x.c", "x86_64-linux-gnu-gcc-13 @rsp", "clang++ @rsp",
		"ld @rsp", "javac @sources", "java @argfile", "rustc @args", "7z a out.7z @list", "7z a out.7z -i@list",
		"7za a o.7z -ir@list", "ar rcs lib.a @objs", "nvcc @opts",
		// Through wrappers, substitutions and shells.
		"timeout 5 sort --files0-from=list", "env -C sub du --files0-from=list", "nice wc --files0-from=-",
		"echo $(wc --files0-from=list)", "bash -c 'sort --files0-from=list'", "find . -print0 | du --files0-from=- -s",
		"git ls-files -z | wc -l --files0-from=-", "stdbuf -oL tar -tf x.tar -T list", "sudo tar -cf o.tar -T list",
	} {
		if _, ok := listInput(line); !ok {
			a := Analyze(line)
			t.Errorf("%q: no list input found (commands %+v)", line, a.Commands)
		}
		if lineReadOnly(line) {
			t.Errorf("%q is read-only, want unknown", line)
		}
	}
}

// lineReadOnly reports a line whose every command is read-only.
func lineReadOnly(line string) bool {
	a := Analyze(line)
	if a.ParseErr != nil || len(a.Opaque) > 0 || len(a.Commands) == 0 {
		return false
	}
	for _, sc := range a.Commands {
		if _, ok := ReadOnly(sc); !ok {
			return false
		}
	}
	return true
}

// TestListFilePathsConfined: the list's own path is still reported, to be
// confined like an argument (a list at /proc/self/environ stays refused).
func TestListFilePathsConfined(t *testing.T) {
	for line, want := range map[string]string{
		"sort --files0-from=/etc/l": "/etc/l", "tar -tf x.tar -T /etc/l": "/etc/l", "find -files0-from /etc/l": "/etc/l",
		"xargs -a /etc/l cat": "/etc/l", "gcc @/etc/l": "/etc/l", "rsync --files-from ../l . o": "../l",
		"sha256sum -c /etc/l": "/etc/l", "tar tfT x.tar /etc/l": "/etc/l",
	} {
		a := Analyze(line)
		var got []string
		for _, sc := range a.Commands {
			for _, p := range PathArgs(sc) {
				got = append(got, p.Value)
			}
		}
		if !slices.Contains(got, want) {
			t.Errorf("%q: path arguments %v, want %s among them", line, got, want)
		}
	}
}

// TestListFileEverydayStays: everyday commands near the class keep their
// answer: read-only ones stay read-only, and none reads a list.
func TestListFileEverydayStays(t *testing.T) {
	for _, line := range []string{
		"sort file", "sort -u -k2 f", "wc -l *.go", "wc -l f g", "du -sh .", "du -X excl .", "tar -tf x.tar",
		"tar tvf x.tar", "tar -tf x.tar -X excl", "tar -tf x.tar -C sub", "find . -name '*.go' -print", "file README.md",
		"file -b f", "sha256sum f", "md5sum a b", "xargs -a list echo", "xargs echo", "xargs -0 echo",
		"find . -name x | xargs -0 echo", "grep -f pats f", "rg --files", "grep --files-with-matches x .",
		"diff --from-file=a b", "jq . data.json", "ls -la",
	} {
		if why, ok := listInput(line); ok {
			t.Errorf("%q reads a list (%s), want not", line, why)
		}
		if _, ok := readOnlyLine(t, line); !ok {
			t.Errorf("%q is not read-only, want read-only", line)
		}
	}
	for _, line := range []string{"gcc -o x x.c", "rsync -a src/ dst/", "git add x", "zip -r o.zip src", "tar -cf o.tar src",
		"email user@host", "cpio -i < x.cpio", "7z x a.7z", "mytool --file=x", "mytool --files x"} {
		if why, ok := listInput(line); ok {
			t.Errorf("%q reads a list (%s), want not", line, why)
		}
	}
}

// optionNames lists the option names ("--files-from", "-T") of a compiled
// option spec.
func optionNames(s optSpec) []string {
	out := make([]string, 0, len(s.opts))
	for name := range s.opts {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// walkReadOnly calls fn with every spec of the read-only tables, its
// global options and its subcommands, named "git log".
func walkReadOnly(name string, s *roSpec, fn func(name string, opts optSpec)) {
	fn(name, s.opts)
	fn(name+" (global)", s.global)
	for sub, ss := range s.subs {
		walkReadOnly(name+" "+sub, ss, fn)
	}
}

// listOption reports an option word spelled like a list option
// ("--files-from", "-files0-from").
func listOption(opt string) bool {
	_, ok := listSpelled(strings.TrimLeft(opt, "-"), false)
	return ok && strings.HasPrefix(opt, "-")
}

// TestNoTableAllowsListOptions walks every table of the analysis: no
// read-only allowlist (of a command, a subcommand or a wrapper) holds an
// option spelled like a list option, every path table marks such options
// PathList, and every command any table knows, given any list spelling,
// is found to read a list (or the line is opaque).
func TestNoTableAllowsListOptions(t *testing.T) {
	for name, s := range readOnlyCommands() {
		walkReadOnly(name, s, func(where string, opts optSpec) {
			for _, o := range optionNames(opts) {
				if listOption(o) {
					t.Errorf("the read-only table of %s allows %s, which names a list of inputs", where, o)
				}
			}
		})
	}
	checkListPathTables(t)
	checked := 0
	for _, name := range tableCommands() {
		for _, s := range listSpellings {
			for _, form := range []string{" --" + s.name + "=list", " --" + s.name + " list", " --" + s.name[:s.min] + "=list"} {
				line := name + form + " f"
				if _, wrapper := wrappers()[name]; wrapper {
					line = name + form + " cat f"
				}
				a := Analyze(line)
				if _, ok := listInput(line); !ok && len(a.Opaque) == 0 && a.ParseErr == nil {
					t.Errorf("%q: the list option is not found", line)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d table lines checked", checked)
	}
}

// checkListPathTables: the wrappers' and commands' path tables mark every
// option spelled like a list option PathList, and the generic table holds
// none (listOptionWord reads them for every command).
func checkListPathTables(t *testing.T) {
	t.Helper()
	for name, w := range wrappers() {
		for _, o := range optionNames(w.opts) {
			if listOption(o) && w.paths[o] != PathList {
				t.Errorf("wrapper %s: %s names a list of inputs but its path table says %v", name, o, w.paths[o])
			}
		}
	}
	for name, table := range commandPathOptions {
		for _, p := range table {
			if p.long != "" && listOption("--"+p.long) && p.access != PathList || p.word != "" && listOption("-"+p.word) && p.access != PathList {
				t.Errorf("%s: path option %q/%q is %v, want list", name, p.long, p.word, p.access)
			}
		}
	}
	for _, p := range genericPathOptions {
		if listOption("--" + p.long) {
			t.Errorf("genericPathOptions holds %s as %v; list options are read by listOptionWord", p.long, p.access)
		}
	}
}

// tableCommands returns every command any table of the analysis names,
// but the keywords and builtins that run their words as a command and the
// commands whose arguments are text (an option value is printed, not
// read), sorted; "git add" stands for git and "mytool" for the rest.
func tableCommands() []string {
	commands := map[string]bool{"git add": true, "mytool": true}
	add := func(names map[string]bool) {
		for name := range names {
			commands[name] = true
		}
	}
	for name := range readOnlyCommands() {
		commands[name] = true
	}
	for name := range wrappers() {
		commands[name] = true
	}
	for name := range commandPathOptions {
		commands[name] = true
	}
	for name := range outputOptions {
		commands[name] = true
	}
	for name := range innerCommandSpecs {
		commands[name] = true
	}
	for _, table := range []map[string]bool{shells, downloaders, networkCommands, interactiveEscapes, checksumTools,
		responseFilePrograms} {
		add(table)
	}
	for _, name := range interpreters {
		commands[name] = true
	}
	for name := range safeModeCommands {
		commands[name] = true
	}
	for name := range envOwnReaders {
		commands[name] = true
	}
	for name := range envOthersReaders {
		commands[name] = true
	}
	for name := range stdinListModes {
		commands[name] = true
	}
	for _, name := range []string{"git", "time", "eval", "["} {
		delete(commands, name)
	}
	for name := range dataArgCommands {
		delete(commands, name)
	}
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// TestFileOptionsOfReadOnlyCommandsReported: every option of the
// read-only tables whose value names a file the command reads (spelled
// with "file", "reference" or "source") is reported in PathOptions, so
// the policy confines it: date -fLINK printed an outside file's lines
// through a link. Options so spelled that name no file are listed.
func TestFileOptionsOfReadOnlyCommandsReported(t *testing.T) {
	// Spelled like a file but naming none: a count, a mode, a name
	// compared with the operands, or (jq --rawfile NAME FILE) a name whose
	// file is the next word, an argument.
	notPaths := set("--binary-files --filelimit --max-filesize --dirstat-by-file --exclude-per-directory " +
		"--starting-file --untracked-files --rawfile --slurpfile")
	checked := 0
	for name, s := range readOnlyCommands() {
		walkReadOnly(name, s, func(where string, opts optSpec) {
			cmd := strings.TrimSuffix(where, " (global)")
			for _, o := range optionNames(opts) {
				kind := opts.opts[o]
				l := strings.ToLower(o)
				if kind == argNone || notPaths[o] || !strings.Contains(l, "file") && !strings.Contains(l, "reference") && !strings.Contains(l, "source") {
					continue
				}
				line := cmd + " " + o + "=some/f"
				switch {
				case len(o) == 2:
					line = cmd + " " + o + "some/f"
				case !strings.HasPrefix(o, "--"):
					line = cmd + " " + o + " some/f" // find -samefile F: an argument of the expression
				}
				a := Analyze(line)
				found := false
				for _, sc := range a.Commands {
					for _, p := range PathArgs(sc) {
						found = found || p.Value == "some/f"
					}
				}
				if !found {
					t.Errorf("%q: the file is not among the path options %v", line, pathOpts(a))
				}
				checked++
			}
		})
	}
	for _, line := range []string{"date -f some/f", "date -rsome/f", "hexdump -fsome/f x", "tree --infofile some/f"} {
		if got := pathOpts(Analyze(line)); !slices.Contains(got, "read some/f") {
			t.Errorf("%q: path options %v, want read some/f", line, got)
		}
	}
	if checked < 15 {
		t.Fatalf("only %d file options checked", checked)
	}
}
