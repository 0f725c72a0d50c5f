package shell

import "sync"

// The read-only tables. Each command lists every option that keeps it
// read-only; anything else (an option that writes a file, runs a program
// or changes the system, and every option not listed) makes the command
// "not read-only", so the policy asks. Left out on purpose:
//
//   - find -exec, -execdir, -ok, -okdir (run programs), -delete, -fprint,
//     -fprint0, -fprintf, -fls (write files), and every primary not in the
//     table, wherever it stands ("find -- . -delete" deletes too): find is
//     read-only with its tests and options and the actions -print,
//     -print0, -ls, -printf, -prune and -quit
//   - sed -i (writes), -f (a script aidex cannot see), and scripts with
//     e, r, R, w, W or the e and w flags of s
//   - tar in any mode but -t, with -I/--use-compress-program,
//     --to-command, --rsh-command and the rest not listed, or an archive
//     name with ":" (a remote archive)
//   - git config in any form but get/list (--get*, --list): it writes
//     .git/config, ~/.gitconfig or the file named
//   - sort -o/--output (writes), --compress-program (runs a program),
//     -T/--temporary-directory (writes temporary files there)
//   - rg --pre, --pre-glob, --hostname-bin (run programs), -z/--search-zip
//     (runs decompressors)
//   - tree -o (writes), -R (writes 00Tree.html in every directory)
//   - file -C/--compile (writes magic.mgc), -z/-Z (decompressors), -S
//     (no sandbox)
//   - date -s/--set and a date operand without "+" (set the clock)
//   - printf -v (assigns a shell variable, PATH included): printf takes
//     no option at all, so "printf FORMAT -x" is not read-only either
//   - xxd -r/-revert (writes binary); uniq and xxd with two operands (the
//     second is a file they write; options after the first operand count
//     as operands, as BSD uniq and xxd read them; option values are
//     counted as operands too, the stricter reading)
//   - git diff/log/show --output (writes), --ext-diff, --textconv (run
//     configured programs), -O (reads an order file); git log
//     --show-signature (runs gpg); git grep -O/--open-files-in-pager
//     (runs a pager), --textconv; git blame --contents
//   - go env -w/-u (write the go env file)
//   - options whose value is a file listing more inputs, and modes that
//     read such lists (listfiles.go): sort, wc and du --files0-from, find
//     -files0-from, tar -T/--files-from, file -f/--files-from, and the
//     checksum tools' -c/--check (with --ignore-missing, --quiet,
//     --status, --strict and --warn, which only go with it)
//   - programs that expose the environment (envreaders.go): jq with env,
//     $ENV, a filter file (-f) or modules (import, include, -L)

// gnuHelp are the options every GNU tool shares.
const gnuHelp = " help version"

// gitDiffOpts are the read-only options of git's diff machinery (diff,
// log -p, show). Values are "::" (glued only): git's revision parser takes
// several of them only as --opt=VALUE.
const (
	gitDiffShort = "pusRabwWzDB::M::C::S::G::U::I::X::"
	gitDiffLong  = "patch no-patch raw patch-with-raw patch-with-stat stat:: numstat shortstat dirstat:: cumulative " +
		"dirstat-by-file:: summary name-only name-status submodule:: color:: no-color color-moved:: no-color-moved " +
		"color-moved-ws:: no-color-moved-ws word-diff:: word-diff-regex:: color-words:: no-renames rename-empty " +
		"no-rename-empty check ws-error-highlight:: full-index binary abbrev:: break-rewrites:: find-renames:: " +
		"find-copies:: find-copies-harder irreversible-delete diff-filter:: find-object:: pickaxe-all pickaxe-regex " +
		"relative:: no-relative text ignore-cr-at-eol ignore-space-at-eol ignore-space-change ignore-all-space " +
		"ignore-blank-lines ignore-matching-lines:: inter-hunk-context:: function-context exit-code quiet no-ext-diff " +
		"no-textconv ignore-submodules:: src-prefix:: dst-prefix:: no-prefix default-prefix line-prefix:: " +
		"ita-invisible-in-index ita-visible-in-index unified:: minimal patience histogram diff-algorithm:: anchored:: " +
		"indent-heuristic no-indent-heuristic compact-summary stat-width:: stat-name-width:: stat-graph-width:: " +
		"stat-count:: output-indicator-new:: output-indicator-old:: output-indicator-context:: rotate-to:: skip-to::"
	gitRevShort = "n::iEFPgmct"
	gitRevLong  = " max-count:: skip:: since:: after:: until:: before:: since-as-filter:: author:: committer:: grep:: " +
		"grep-reflog:: all-match invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings " +
		"perl-regexp remove-empty merges no-merges min-parents:: max-parents:: no-min-parents no-max-parents " +
		"first-parent exclude-first-parent-only not all branches:: tags:: remotes:: glob:: exclude:: reflog " +
		"alternate-refs single-worktree ignore-missing cherry-mark cherry-pick left-only right-only cherry " +
		"walk-reflogs merge boundary simplify-by-decoration show-pulls full-history dense sparse simplify-merges " +
		"ancestry-path:: date-order author-date-order topo-order reverse no-walk:: do-walk pretty:: format:: " +
		"abbrev-commit no-abbrev-commit oneline encoding:: expand-tabs:: no-expand-tabs notes:: no-notes " +
		"show-notes:: standard-notes no-standard-notes relative-date date:: parents children left-right graph " +
		"show-linear-break:: cc dd combined-all-paths diff-merges:: no-diff-merges remerge-diff root " +
		"decorate:: no-decorate decorate-refs:: decorate-refs-exclude:: clear-decorations source mailmap " +
		"no-mailmap use-mailmap no-use-mailmap full-diff log-size follow no-follow"
)

// git config's options that choose the file and how values are shown.
const (
	gitConfigScope = "global system local worktree file: blob:"
	gitConfigShow  = " show-origin show-scope name-only null includes no-includes default: type: no-type bool int " +
		"bool-or-int path expiry-date"
)

// gitReadOnlyTable returns the read-only git subcommands (uncompiled; the
// "git" entry of readOnlyCommands holds the compiled copy).
func gitReadOnlyTable() map[string]*roSpec {
	return map[string]*roSpec{
		"status": {opts: optSpec{short: "sbvzu::", long: "short branch show-stash porcelain:: long verbose " +
			"untracked-files:: ignore-submodules:: ignored:: column:: no-column ahead-behind no-ahead-behind renames " +
			"no-renames find-renames:: null"}},
		"diff": {opts: optSpec{short: gitDiffShort, long: gitDiffLong + " cached staged merge-base no-index base ours theirs"}},
		"log":  {opts: optSpec{short: gitDiffShort + gitRevShort + "L::", long: gitDiffLong + gitRevLong, num: true}},
		"show": {opts: optSpec{short: gitDiffShort + gitRevShort, long: gitDiffLong + gitRevLong, num: true}},
		"rev-parse": {opts: optSpec{short: "q", long: "abbrev-ref:: short:: verify quiet show-toplevel show-prefix " +
			"show-cdup git-dir git-common-dir absolute-git-dir is-inside-work-tree is-inside-git-dir " +
			"is-bare-repository is-shallow-repository symbolic symbolic-full-name all branches:: tags:: remotes:: " +
			"glob:: show-superproject-working-tree shared-index-path show-object-format:: show-ref-format " +
			"local-env-vars path-format:: git-path:: default:: sq sq-quote not revs-only no-revs flags no-flags " +
			"since:: until:: after:: before:: disambiguate:: keep-dashdash stop-at-non-option"}},
		"ls-files": {opts: optSpec{short: "cdmoiskuztvfx::X::", long: "cached deleted modified others ignored stage " +
			"unmerged killed directory no-empty-directory eol full-name recurse-submodules abbrev:: debug deduplicate " +
			"exclude:: exclude-from:: exclude-per-directory:: exclude-standard error-unmatch with-tree:: format:: " +
			"sparse resolve-undo"}},
		"blame": {opts: optSpec{short: "bL::ltS::pM::C::fnsewc", long: "root show-stats reverse:: first-parent porcelain " +
			"line-porcelain incremental encoding:: since:: ignore-rev:: ignore-revs-file:: color-lines color-by-age " +
			"progress no-progress score-debug show-name show-number show-email abbrev:: date::"}},
		"describe": {opts: optSpec{long: "all tags contains abbrev:: candidates:: exact-match debug long match:: " +
			"exclude:: always first-parent dirty:: broken::"}},
		"shortlog": {opts: optSpec{short: "nsecw::iEFPgmt", long: "numbered summary email format:: group:: " +
			"committer" + gitRevLong, num: true}},
		"grep": {opts: optSpec{short: "iIwvhHEGFPnlLczoqpWae:f:A::B::C::m::", long: "cached untracked no-index " +
			"recurse-submodules exclude-standard no-exclude-standard ignore-case word-regexp invert-match " +
			"full-name extended-regexp basic-regexp fixed-strings perl-regexp line-number column " +
			"files-with-matches name-only files-without-match count null only-matching quiet show-function " +
			"function-context text and or not all-match max-depth:: threads:: color:: no-color break heading " +
			"after-context:: before-context:: context:: max-count::", num: true}},
		"branch": {name: "git branch (list)", listWith: "--list -l --contains --merged --no-merged --points-at",
			opts: optSpec{short: "arvli", long: "all remotes verbose list contains:: no-contains:: merged:: " +
				"no-merged:: points-at:: sort:: format:: color:: no-color column:: no-column show-current ignore-case " +
				"abbrev:: no-abbrev omit-empty"}},
		"remote": {name: "git remote (list)", operands: operandsNone, opts: optSpec{short: "v", long: "verbose"}},
		"config": {name: "git config (read)", custom: gitConfigAccepts, listAll: true,
			listWith: "--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool --list -l",
			opts: optSpec{short: "lzf:", long: gitConfigScope + " get get-all get-regexp get-urlmatch get-color " +
				"get-colorbool list fixed-value" + gitConfigShow},
			subs: map[string]*roSpec{
				"get":  {opts: optSpec{short: "zf:", long: gitConfigScope + " all regexp value: fixed-value url: show-names" + gitConfigShow}},
				"list": {opts: optSpec{short: "zf:", long: gitConfigScope + gitConfigShow}},
			}},
		"tag": {name: "git tag (list)", listWith: "--list -l", listAll: true,
			opts: optSpec{short: "ln::i", long: "list sort:: contains:: no-contains:: merged:: no-merged:: points-at:: " +
				"column:: no-column format:: color:: ignore-case omit-empty"}},
	}
}

// readOnlyCommands returns the table ReadOnly reads, compiled on first use so
// that processes which never classify a command (aidex --version) do not pay
// for it at start-up.
var readOnlyCommands = sync.OnceValue(func() map[string]*roSpec {
	return compileAll(map[string]*roSpec{
		"ls": {opts: optSpec{short: "aAbBcCdDfFgGhHikLlmnNopqQrRsStuUvxXZ1@eOI:T:w:", long: "all almost-all author " +
			"escape block-size: ignore-backups color:: directory dired classify:: file-type format: full-time " +
			"group-directories-first no-group human-readable si dereference-command-line " +
			"dereference-command-line-symlink-to-dir hide: hyperlink:: indicator-style: inode ignore: kibibytes " +
			"dereference literal numeric-uid-gid hide-control-chars show-control-chars quote-name quoting-style: " +
			"reverse recursive size sort: time: time-style: tabsize: width: context zero" + gnuHelp}},
		"cat": {opts: optSpec{short: "AbeEnstTuv", long: "show-all number-nonblank show-ends number squeeze-blank " +
			"show-tabs show-nonprinting" + gnuHelp}},
		"head": {opts: optSpec{short: "c:n:qvz", long: "bytes: lines: quiet silent verbose zero-terminated" + gnuHelp, num: true}},
		"tail": {opts: optSpec{short: "c:fFn:qs:vz", long: "bytes: follow:: lines: max-unchanged-stats: pid: quiet retry " +
			"silent sleep-interval: verbose zero-terminated" + gnuHelp, num: true}},
		"wc":     {opts: optSpec{short: "cmlLw", long: "bytes chars lines max-line-length words total:" + gnuHelp}},
		"pwd":    {opts: optSpec{short: "LP", long: "logical physical" + gnuHelp}},
		"echo":   {data: true},
		"printf": {},
		"grep":   grepSpec(),
		"egrep":  grepSpec(),
		"fgrep":  grepSpec(),
		"rg": {opts: optSpec{short: "abcFhHiIlLnNopPqsSuUvVwx0.A:B:C:d:E:e:f:g:j:M:m:r:T:t:", long: "after-context: " +
			"before-context: context: binary block-buffered byte-offset case-sensitive color: colors: column " +
			"context-separator: count count-matches crlf debug dfa-size-limit: encoding: engine: " +
			"field-context-separator: field-match-separator: files files-with-matches files-without-match " +
			"fixed-strings follow glob: glob-case-insensitive heading hidden iglob: ignore-case ignore-file: " +
			"ignore-file-case-insensitive include-zero invert-match json line-buffered line-number line-regexp " +
			"max-columns: max-columns-preview max-count: max-depth: max-filesize: mmap multiline multiline-dotall " +
			"no-config no-filename no-heading no-ignore no-ignore-dot no-ignore-exclude no-ignore-files " +
			"no-ignore-global no-ignore-messages no-ignore-parent no-ignore-vcs no-line-number no-messages no-mmap " +
			"no-pcre2-unicode no-require-git no-unicode null null-data one-file-system only-matching passthru " +
			"path-separator: pcre2 pcre2-version pretty quiet regex-size-limit: regexp: replace: smart-case sort: " +
			"sortr: stats text threads: trim type: type-add: type-clear: type-list type-not: unrestricted vimgrep " +
			"with-filename word-regexp auto-hybrid-regex no-auto-hybrid-regex" + gnuHelp}},
		"find": {custom: findAccepts, opts: optSpec{words: "name: iname: path: ipath: wholename: iwholename: regex: iregex: " +
			"regextype: type: xtype: size: mtime: mmin: atime: amin: ctime: cmin: newer: anewer: cnewer: newermt: " +
			"newerct: newerat: samefile: inum: links: user: group: uid: gid: perm: maxdepth: mindepth: fstype: lname: " +
			"ilname: used: context: printf: print print0 ls prune quit true false empty readable " +
			"writable executable nouser nogroup depth d xdev mount follow noleaf daystart ignore_readdir_race " +
			"noignore_readdir_race warn nowarn not and or a o help version"}},
		"sed": {custom: sedAccepts, opts: optSpec{short: "nrsuzEe:l:", long: "quiet silent expression: regexp-extended " +
			"separate unbuffered null-data zero-terminated line-length: posix debug sandbox binary" + gnuHelp}},
		"tar": {custom: tarAccepts, listWith: "-t --list", listAll: true, opts: optSpec{short: "tvf:zjJZC:X:b:Bi",
			long: "list verbose file: gzip gunzip ungzip bzip2 xz lzma lzip lzop zstd compress uncompress directory: " +
				"exclude: exclude-from: wildcards no-wildcards anchored no-anchored ignore-case no-ignore-case " +
				"wildcards-match-slash no-wildcards-match-slash numeric-owner full-time utc quoting-style: " +
				"show-transformed-names blocking-factor: read-full-records ignore-zeros null no-null exclude-vcs " +
				"exclude-backups strip-components: no-recursion recursion" + gnuHelp}},
		"tree": {opts: optSpec{short: "adlfxiASnCqNQpugshDFvtcUrXJL:P:I:H:T:", long: "gitignore gitfile: ignore-case " +
			"matchdirs metafirst prune info infofile: noreport charset: filelimit: dirsfirst filesfirst si du " +
			"timefmt: inodes device sort: nolinks fromfile fromtabfile fflinks hyperlink scheme: authority:" + gnuHelp}},
		"stat": {opts: optSpec{short: "Lfc:t", long: "dereference file-system format: printf: terse cached:" + gnuHelp}},
		"file": {opts: optSpec{short: "bcdEe:F:hikLlm:NnP:prsv0", long: "apple brief checking-printout debug exclude: " +
			"exclude-quiet: extension separator: no-dereference mime mime-type mime-encoding keep-going " +
			"list dereference magic-file: no-pad no-buffer parameter: preserve-date raw special-files print0" + gnuHelp}},
		"du": {opts: optSpec{short: "0abcDhHklLmPsSxX:B:d:t:", long: "null all apparent-size block-size: bytes total " +
			"dereference-args human-readable inodes kilobytes count-links dereference max-depth: " +
			"no-dereference separate-dirs si summarize threshold: time:: time-style: exclude-from: exclude: " +
			"one-file-system" + gnuHelp}},
		"df": {opts: optSpec{short: "aB:hHiklPt:Tx:v", long: "all block-size: human-readable si inodes local no-sync " +
			"output:: portability print-type sync total type: exclude-type:" + gnuHelp}},
		"basename": {opts: optSpec{short: "as:z", long: "multiple suffix: zero" + gnuHelp}},
		"dirname":  {opts: optSpec{short: "z", long: "zero" + gnuHelp}},
		"realpath": {opts: optSpec{short: "eLmPqsz", long: "canonicalize-existing canonicalize-missing logical physical " +
			"quiet relative-to: relative-base: strip no-symlinks zero" + gnuHelp}},
		"readlink": {opts: optSpec{short: "efmnqsvz", long: "canonicalize canonicalize-existing canonicalize-missing " +
			"no-newline quiet silent verbose zero" + gnuHelp}},
		"true":  {data: true},
		"false": {data: true},
		"which": {opts: optSpec{short: "as", long: "all skip-alias skip-dot skip-tilde show-dot show-tilde tty-only " +
			"read-alias read-functions skip-functions" + gnuHelp}},
		"uname": {opts: optSpec{short: "asnrvmpio", long: "all kernel-name nodename kernel-release kernel-version " +
			"machine processor hardware-platform operating-system" + gnuHelp}},
		"date": {operands: operandsPlus, opts: optSpec{short: "d:f:I::r:Ru", long: "date: file: iso-8601:: rfc-email " +
			"rfc-3339: reference: utc universal debug resolution" + gnuHelp}},
		"cut": {opts: optSpec{short: "b:c:d:f:nsz", long: "bytes: characters: delimiter: fields: complement " +
			"only-delimited output-delimiter: zero-terminated" + gnuHelp}},
		"tr": {opts: optSpec{short: "cCdst", long: "complement delete squeeze-repeats truncate-set1" + gnuHelp}},
		"sort": {opts: optSpec{short: "bcCdfghik:mMnrRsS:t:uVz", long: "batch-size: debug parallel: " +
			"random-source: sort: check:: key: merge stable buffer-size: field-separator: unique zero-terminated " +
			"ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort " +
			"human-numeric-sort numeric-sort random-sort reverse version-sort" + gnuHelp}},
		"diff": {opts: optSpec{short: "abBcC:dD:eEF:hHiI:lnNpPqrsS:tTuU:vwW:x:X:yZ", long: "normal brief " +
			"report-identical-files context:: unified:: ed rcs side-by-side width: left-column " +
			"suppress-common-lines show-c-function show-function-line: label: expand-tabs initial-tab tabsize: " +
			"suppress-blank-empty paginate recursive no-dereference new-file unidirectional-new-file " +
			"ignore-file-name-case no-ignore-file-name-case exclude: exclude-from: starting-file: from-file: " +
			"to-file: ignore-case ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space " +
			"ignore-blank-lines ignore-matching-lines: text strip-trailing-cr ifdef: old-group-format: " +
			"new-group-format: unchanged-group-format: changed-group-format: line-format: old-line-format: " +
			"new-line-format: unchanged-line-format: minimal horizon-lines: speed-large-files color:: palette:" + gnuHelp}},
		"cmp":  {opts: optSpec{short: "bi:ln:sv", long: "print-bytes ignore-initial: verbose bytes: quiet silent" + gnuHelp}},
		"comm": {opts: optSpec{short: "123z", long: "check-order nocheck-order output-delimiter: total zero-terminated" + gnuHelp}},
		"nl": {opts: optSpec{short: "b:d:f:h:i:l:n:ps:v:w:", long: "body-numbering: section-delimiter: " +
			"footer-numbering: header-numbering: line-increment: join-blank-lines: number-format: no-renumber " +
			"number-separator: starting-line-number: number-width:" + gnuHelp}},
		"od": {opts: optSpec{short: "A:j:N:S:t:vw::abcdfilosx", long: "address-radix: endian: skip-bytes: read-bytes: " +
			"strings:: format: output-duplicates width:: traditional" + gnuHelp}},
		"hexdump": {opts: optSpec{short: "bcCdoxe:f:n:s:vL::", long: "one-byte-octal one-byte-char canonical " +
			"two-bytes-decimal two-bytes-octal two-bytes-hex format: format-file: color:: length: skip: " +
			"no-squeezing" + gnuHelp}},
		"column": {opts: optSpec{short: "c:deE:H:i:JLn:N:o:O:p:r:R:s:tT:W:x", long: "columns: table table-columns: " +
			"table-columns-limit: table-empty-lines table-header-as-columns table-header-repeat table-hide: " +
			"table-name: table-noextreme: table-noheadings table-order: table-right: table-truncate: table-wrap: " +
			"table-parent: table-tree: table-tree-id: tree: tree-id: tree-parent: json keep-empty-lines " +
			"output-separator: separator: output-width: fillrows" + gnuHelp}},
		"sha256sum": checksumSpec(),
		"sha1sum":   checksumSpec(),
		"md5sum":    checksumSpec(),
		"sha512sum": checksumSpec(),
		"cd":        {posix: true, opts: optSpec{short: "LPe@"}},
		"test":      {data: true},
		"[":         {data: true},
		"uniq": {posix: true, operands: operandsOne, opts: optSpec{short: "cdDf::is::uw::z", long: "count repeated " +
			"all-repeated:: skip-fields:: ignore-case skip-chars:: unique group:: check-chars:: zero-terminated" + gnuHelp}},
		"xxd": {posix: true, operands: operandsOne, opts: optSpec{words: "a b C c:: cols:: E e g:: groupsize:: h help " +
			"i include l:: len:: n:: name:: o:: offset:: p ps postscript plain s:: seek:: u v version d R::"}},
		// jq: --arg NAME VALUE and its kin take two words; the second is read
		// as an operand, so it is path-checked (the stricter reading).
		"jq": {opts: optSpec{short: "nRscrjaSCMehVL:f:", long: "null-input raw-input slurp compact-output raw-output " +
			"raw-output0 join-output ascii-output sort-keys color-output monochrome-output tab indent: unbuffered " +
			"stream stream-errors seq exit-status from-file: arg: argjson: slurpfile: rawfile: args jsonargs " +
			"build-configuration" + gnuHelp}},
		"git": {global: optSpec{short: "P", long: "no-pager no-optional-locks"}, subs: gitReadOnlyTable(), rootOnly: true},
		"go": {subs: map[string]*roSpec{
			"version": {operands: operandsNone},
			"env":     {opts: optSpec{words: "json changed"}},
		}},
	})
})

func grepSpec() *roSpec {
	return &roSpec{opts: optSpec{short: "EFGPe:f:iyvwxcLlm:obHhnTZzA:B:C:aIrRsqUuVd:D:", long: "extended-regexp " +
		"fixed-strings basic-regexp perl-regexp regexp: file: ignore-case no-ignore-case word-regexp " +
		"line-regexp null-data no-messages invert-match max-count: byte-offset line-number line-buffered " +
		"with-filename no-filename label: only-matching quiet silent binary-files: text directories: devices: " +
		"recursive dereference-recursive include: exclude: exclude-from: exclude-dir: files-without-match " +
		"files-with-matches count initial-tab null before-context: after-context: context: color:: colour:: " +
		"binary" + gnuHelp, num: true}}
}

func checksumSpec() *roSpec {
	return &roSpec{opts: optSpec{short: "btwz", long: "binary tag text zero" + gnuHelp}}
}
