package shelltmpl

// The programs the guard knows, by base name (docs/run-guard.md §2 lists
// them). The option letters are the programs' own (their man pages and
// getopt strings); where a spec leaves an option out, the guard treats it
// as one that may take an argument, which only ever refuses more.

// Wrappers: they run a program named by a later word.
var wrappers = map[string]*spec{
	// -S splits its argument into the command line; -P (BSD) is where the
	// program is looked up, -C the directory a relative program name is
	// found from: each lets the value choose what runs.
	"env": {short: "0iu:C:S:P:v", code: "SPC", rest: restProgram, assigns: true, dashdash: true,
		long:     []string{"ignore-environment", "null", "unset=", "chdir=", "split-string=", "block-signal?", "default-signal?", "ignore-signal?", "list-signal-handling", "debug", "help", "version"},
		codeLong: []string{"split-string", "chdir"}},
	"nice":    {short: "n:0123456789", long: []string{"adjustment=", "help", "version"}, rest: restProgram, dashdash: true},
	"timeout": {short: "fk:ps:v", long: []string{"foreground", "kill-after=", "preserve-status", "signal=", "verbose", "help", "version"}, rest: restProgram, operands: 1, dashdash: true},
	"nohup":   {long: []string{"help", "version"}, rest: restProgram, dashdash: true},
	"setsid":  {short: "cfwhV", long: []string{"ctty", "fork", "wait", "help", "version"}, rest: restProgram, dashdash: true},
	"stdbuf":  {short: "i:o:e:", long: []string{"input=", "output=", "error=", "help", "version"}, rest: restProgram, dashdash: true},
	"xargs": {short: "0a:d:E:e::I:i::L:l::n:oP:prs:tx", rest: restProgram, dashdash: true,
		long: []string{"null", "arg-file=", "delimiter=", "eof?", "replace?", "max-lines?", "max-args=", "max-procs=", "max-chars=", "interactive", "no-run-if-empty", "exit", "verbose", "show-limits", "open-tty", "process-slot-var=", "help", "version"}},
	"time": {short: "af:o:pqvV", long: []string{"append", "format=", "output=", "portability", "quiet", "verbose", "help", "version"}, rest: restProgram, dashdash: true},
	"command": {short: "pvV", rest: restProgram, dashdash: true,
		modes: []modeSwitch{{opt: "-v", rest: restData}, {opt: "-V", rest: restData}}},
	"exec":    {short: "cla:", rest: restProgram, dashdash: true},
	"builtin": {rest: restProgram, noOpts: true},
	"ionice": {short: "c:n:tpPuhV", rest: restProgram, dashdash: true,
		long:  []string{"class=", "classdata=", "ignore", "pid", "pgid", "uid", "help", "version"},
		modes: []modeSwitch{{opt: "-p", rest: restData}, {opt: "-P", rest: restData}, {opt: "-u", rest: restData}, {opt: "--pid", rest: restData}, {opt: "--pgid", rest: restData}, {opt: "--uid", rest: restData}}},
	"chrt": {short: "abdefimopP:rRT:D:vhV", rest: restProgram, operands: 1, dashdash: true,
		long:  []string{"all-tasks", "batch", "deadline", "ext", "fifo", "idle", "max", "other", "pid", "rr", "reset-on-fork", "sched-runtime=", "sched-period=", "sched-deadline=", "verbose", "help", "version"},
		modes: []modeSwitch{{opt: "-p", rest: restData}, {opt: "-m", rest: restData}, {opt: "--pid", rest: restData}, {opt: "--max", rest: restData}}},
	"taskset": {short: "acphV", long: []string{"all-tasks", "cpu-list", "pid", "help", "version"}, rest: restProgram, operands: 1, dashdash: true,
		modes: []modeSwitch{{opt: "-p", rest: restData}, {opt: "--pid", rest: restData}}},
	"flock": {short: "sexnw:E:uoc:FhV", code: "c", rest: restProgram, operands: 1, dashdash: true, special: specialFlock,
		long:     []string{"shared", "exclusive", "unlock", "nonblock", "nb", "timeout=", "wait=", "conflict-exit-code=", "close", "command=", "no-fork", "fcntl", "verbose", "help", "version"},
		codeLong: []string{"command"},
		modes:    []modeSwitch{{opt: "-c", rest: restData}, {opt: "--command", rest: restData}}},
	// -D and -R choose the directory and the root the program is found in.
	"sudo": {short: "AbBC:D:Eeg:HiKklnPp:R:r:SsT:t:U:u:Vv", code: "DR", codeLong: []string{"chdir", "chroot"}, rest: restProgram, dashdash: true,
		long: []string{"askpass", "background", "bell", "close-from=", "chdir=", "preserve-env?", "edit", "group=", "set-home", "help", "host=", "login", "remove-timestamp",
			"reset-timestamp", "list", "non-interactive", "preserve-groups", "prompt=", "chroot=", "role=", "stdin", "shell", "type=", "command-timeout=", "other-user=", "user=", "version", "validate"},
		// -s and -i hand the command to a shell as one command line.
		modes: []modeSwitch{{opt: "-s", rest: restCode}, {opt: "-i", rest: restCode}, {opt: "--shell", rest: restCode}, {opt: "--login", rest: restCode},
			{opt: "-e", rest: restData}, {opt: "--edit", rest: restData}, {opt: "-l", rest: restData}, {opt: "--list", rest: restData},
			{opt: "-v", rest: restData}, {opt: "--validate", rest: restData}, {opt: "-K", rest: restData}, {opt: "-V", rest: restData}}},
	"doas": {short: "a:C:Lnsu:", rest: restProgram,
		modes: []modeSwitch{{opt: "-s", rest: restCode}, {opt: "-C", rest: restData}, {opt: "-L", rest: restData}}},
	// su and runuser give their words after the user to a shell; runuser
	// -u runs a program instead. They permute, so the program's own
	// options would be theirs: only a "--" of theirs ends them.
	"su": {short: "c:fg:G:lmpPs:w:hV", code: "cs", rest: restCode, operands: 1, permute: true, dashdash: true,
		long:     []string{"command=", "session-command=", "fast", "group=", "supp-group=", "login", "preserve-environment", "pty", "shell=", "whitelist-environment=", "help", "version"},
		codeLong: []string{"command", "session-command", "shell"}},
	"runuser": {short: "c:fg:G:lmpPs:u:w:hV", code: "cs", rest: restCode, operands: 1, permute: true, dashdash: true,
		long:     []string{"command=", "session-command=", "fast", "group=", "supp-group=", "login", "preserve-environment", "pty", "shell=", "user=", "whitelist-environment=", "help", "version"},
		codeLong: []string{"command", "session-command", "shell"},
		modes:    []modeSwitch{{opt: "-u", rest: restProgram}, {opt: "--user", rest: restProgram}}},
	// chroot's operand is the root the program is found in.
	"chroot": {long: []string{"userspec=", "groups=", "skip-chdir", "help", "version"}, rest: restProgram, operands: 1, codeOperands: true, dashdash: true},
	"unshare": {short: "fmuinpCTUrR:w:S:G:chV", code: "Rw", codeLong: []string{"root", "wd"}, rest: restProgram, dashdash: true,
		long: []string{"fork", "mount?", "uts?", "ipc?", "net?", "pid?", "cgroup?", "time?", "user?", "map-root-user", "map-current-user", "map-user=", "map-group=", "map-users=", "map-groups=",
			"map-auto", "kill-child?", "mount-proc?", "mount-binfmt?", "propagation=", "setgroups=", "keep-caps", "setuid=", "setgid=", "root=", "wd=", "monotonic=", "boottime=", "help", "version"}},
	"nsenter": {short: "at:m::u::i::n::p::C::U::T::S:G:r::w::W::eFZhV", code: "rwW", codeLong: []string{"root", "wd", "wdns"}, rest: restProgram, dashdash: true,
		long: []string{"all", "target=", "mount?", "uts?", "ipc?", "net?", "pid?", "cgroup?", "user?", "time?", "user-parent", "setuid=", "setgid=", "preserve-credentials", "keep-caps",
			"root?", "wd?", "wdns=", "env", "no-fork", "join-cgroup", "follow-context", "help", "version"}},
	"setpriv": {short: "dhV", rest: restProgram, dashdash: true,
		long: []string{"dump", "no-new-privs", "nnp", "ambient-caps=", "inh-caps=", "bounding-set=", "ruid=", "euid=", "rgid=", "egid=", "reuid=", "regid=", "clear-groups", "keep-groups",
			"init-groups", "groups=", "securebits=", "pdeathsig=", "selinux-label=", "apparmor-profile=", "landlock-access=", "landlock-rule=", "reset-env", "help", "version"}},
	"caffeinate": {short: "dimsut:w:", rest: restProgram, dashdash: true},
	"busybox":    {rest: restProgram, noOpts: true},
	// watch joins its words into one command line for sh -c; -x runs them
	// as a program and its arguments.
	"watch": {short: "bcCd::egn:pq:rtwxhv", rest: restCode, dashdash: true,
		long:  []string{"beep", "color", "no-color", "differences?", "errexit", "chgexit", "interval=", "precise", "equexit=", "no-rerun", "no-title", "no-wrap", "no-linewrap", "exec", "help", "version"},
		modes: []modeSwitch{{opt: "-x", rest: restProgram}, {opt: "--exec", rest: restProgram}}},
	// ssh gives the words after the destination to the remote shell.
	"ssh":  {short: "46AaCfGgKkMNnqsTtVvXxYyB:b:c:D:E:e:F:I:i:J:L:l:m:O:o:P:p:Q:R:S:W:w:", code: "oF", rest: restCode, operands: 1},
	"find": {short: "HLPD:O::", rest: restData, special: specialFind},
}

// Shells and interpreters: they run a script named by the first operand,
// or code given in an option.
var interpreters = map[string]*spec{
	"python3": {short: "bBc:dEhiIm:OPqRsStuvVW:xX:3", code: "cm", rest: restScript, dashdash: true,
		long:  []string{"check-hash-based-pycs=", "help", "help-env", "help-xoptions", "help-all", "version"},
		modes: []modeSwitch{{opt: "-c", rest: restCodeArgs, stop: true}, {opt: "-m", rest: restCodeArgs, stop: true}}},
	"node": {short: "e:p:r:C:icvh", code: "epr", rest: restScript, dashdash: true,
		long: []string{"eval=", "print=", "require=", "import=", "loader=", "experimental-loader=", "conditions=", "interactive", "check", "version", "help", "env-file=", "title=",
			"input-type=", "inspect?", "inspect-brk?", "watch", "test", "no-warnings", "enable-source-maps", "stack-trace-limit="},
		// --env-file may set NODE_OPTIONS; --inspect opens a debugger.
		codeLong: []string{"eval", "print", "require", "import", "loader", "experimental-loader", "env-file", "inspect", "inspect-brk"},
		modes:    []modeSwitch{{opt: "-e", rest: restCodeArgs}, {opt: "-p", rest: restCodeArgs}, {opt: "--eval", rest: restCodeArgs}, {opt: "--print", rest: restCodeArgs}}},
	// -F's pattern is compiled into the program, where (?{…}) runs code.
	"perl": {short: "0::aC::cd::D:e:E:fF:hi::I:lM:m:npsStTuUvVwWx::X", code: "eEMmdIF", rest: restScript, dashdash: true,
		modes: []modeSwitch{{opt: "-e", rest: restCodeArgs}, {opt: "-E", rest: restCodeArgs}}},
	"ruby": {short: "0::aC:cdE:e:F:hi::I:K:lnpr:sS:T::vwW::x::y", code: "erI", rest: restScript, dashdash: true,
		long:  []string{"enable=", "disable=", "encoding=", "external-encoding=", "internal-encoding=", "dump=", "verbose", "version", "help", "copyright", "yydebug", "jit", "backtrace-limit=", "crash-report="},
		modes: []modeSwitch{{opt: "-e", rest: restCodeArgs}}},
	"php": {short: "aB:c:Cd:eE:f:F:hHilmnqr:R:sS:t:vwz:", code: "BcdEFRrz", rest: restScript, dashdash: true,
		modes: []modeSwitch{{opt: "-r", rest: restCodeArgs}, {opt: "-B", rest: restCodeArgs}, {opt: "-R", rest: restCodeArgs}, {opt: "-E", rest: restCodeArgs}, {opt: "-F", rest: restCodeArgs}, {opt: "-f", rest: restCodeArgs}}},
	"lua":       {short: "e:l:ivEW", code: "el", rest: restScript, dashdash: true},
	"Rscript":   {short: "e:", code: "e", long: []string{"default-packages=", "verbose", "version", "help"}, codeLong: []string{"default-packages"}, rest: restScript, modes: []modeSwitch{{opt: "-e", rest: restCodeArgs}}},
	"osascript": {short: "e:l:is:", code: "e", rest: restScript, modes: []modeSwitch{{opt: "-e", rest: restCodeArgs}}},
	// PowerShell reads its arguments as one command line.
	"pwsh": {rest: restCode, noOpts: true},
	"awk": {short: "f:v:F:e:i:l:E:W:bcCd::D::gL::hM::nNo::O::p::PrsSt::V", code: "eil", rest: restFirstCode, dashdash: true,
		long: []string{"file=", "assign=", "field-separator=", "source=", "include=", "load=", "exec=", "characters-as-bytes", "traditional", "copyright", "dump-variables?", "debug?",
			"gen-pot", "help", "lint?", "bignum", "use-lc-numeric", "non-decimal-data", "optimize", "profile?", "pretty-print?", "posix", "re-interval", "no-optimize", "sandbox", "version"},
		codeLong: []string{"source", "include", "load"},
		modes: []modeSwitch{{opt: "-f", rest: restData}, {opt: "-e", rest: restData}, {opt: "-E", rest: restData, stop: true},
			{opt: "--file", rest: restData}, {opt: "--source", rest: restData}, {opt: "--exec", rest: restData, stop: true}}},
	"sed": {short: "e:f:l:i::EnrsuzbhV", code: "e", rest: restFirstCode, permute: true, dashdash: true,
		long: []string{"expression=", "file=", "line-length=", "in-place?", "null-data", "zero-terminated", "separate", "unbuffered", "sandbox", "debug", "posix",
			"follow-symlinks", "regexp-extended", "quiet", "silent", "binary", "help", "version"},
		codeLong: []string{"expression"},
		modes:    []modeSwitch{{opt: "-e", rest: restData}, {opt: "-f", rest: restData}, {opt: "--expression", rest: restData}, {opt: "--file", rest: restData}}},
	// The shells: -c makes the first operand the command line to run.
	"sh": {short: "aBbCcDEefHhiklmnO:o:PprsTtuvx", rest: restScript, dashdash: true, plus: true,
		long:     []string{"rcfile=", "init-file=", "norc", "noprofile", "login", "posix", "restricted", "verbose", "version", "help", "noediting", "debugger", "dump-strings", "dump-po-strings", "pretty-print"},
		codeLong: []string{"rcfile", "init-file"},
		modes:    []modeSwitch{{opt: "-c", rest: restFirstCode}, {opt: "-s", rest: restCodeArgs}}},
	"fish": {short: "c:C:d:f:o:ilnpPvh", code: "cC", rest: restScript, dashdash: true,
		long:     []string{"command=", "init-command=", "debug=", "features=", "debug-output=", "profile=", "profile-startup=", "interactive", "login", "no-execute", "private", "print-rusage-self", "print-debug-categories", "no-config", "version", "help"},
		codeLong: []string{"command", "init-command"},
		modes:    []modeSwitch{{opt: "-c", rest: restCodeArgs}, {opt: "--command", rest: restCodeArgs}}},
}

// Shell builtins: what they do with their words.
var builtins = map[string]*spec{
	"eval":   {rest: restCode, noOpts: true},
	"trap":   {short: "lpP", rest: restFirstCode, dashdash: true},
	"source": {rest: restScript, dashdash: true},
	".":      {rest: restScript, dashdash: true},
	// These take variable names, where bash evaluates an array subscript
	// (a[$(cmd)]) as code.
	"unset":    {short: "fvn", rest: restCode, dashdash: true},
	"read":     {short: "ersa:d:i:n:N:p:t:u:", code: "a", rest: restCode, dashdash: true},
	"printf":   {short: "v:", code: "v", rest: restData, dashdash: true},
	"mapfile":  {short: "d:n:O:s:tu:C:c:", code: "C", rest: restCode, dashdash: true},
	"getopts":  {rest: restCode, noOpts: true},
	"wait":     {short: "fnp:", code: "p", rest: restData, dashdash: true},
	"test":     {short: "v:", code: "v", rest: restData},
	"let":      {rest: restCode, noOpts: true},
	"enable":   {short: "adnpsf:", code: "f", rest: restData, dashdash: true},
	"hash":     {short: "lrp:dt", code: "p", rest: restData, dashdash: true},
	"alias":    {short: "p", rest: restCode, dashdash: true},
	"fc":       {short: "e:lnrs", code: "e", rest: restData, dashdash: true},
	"complete": {short: "abcdefgjksuvpro:A:G:W:F:C:X:P:S:DEI", code: "CF", rest: restData, dashdash: true},
	"bind":     {short: "m:lpsvPSVXf:q:u:r:x:", code: "xf", rest: restData, dashdash: true},
	"echo":     {short: "neE", rest: restData},
}

// Programs that read their operands as data and take "--" as the end of
// their options: the only ones whose "--" the guard trusts.
var plainPrograms = map[string]*spec{
	"rg": {short: "A:B:C:d:E:e:f:g:j:m:M:r:t:T:abcFHhiIlLnNopPqsSuUvVwxz0", codeLong: []string{"pre"}, permute: true, dashdash: true,
		long: []string{"regexp=", "file=", "after-context=", "before-context=", "context=", "max-depth=", "encoding=", "glob=", "iglob=", "threads=", "max-count=", "max-columns=",
			"replace=", "type=", "type-not=", "type-add=", "type-clear=", "pre=", "pre-glob=", "color=", "colors=", "sort=", "sortr=", "max-filesize=", "context-separator=",
			"field-context-separator=", "field-match-separator=", "path-separator=", "dfa-size-limit=", "regex-size-limit=", "engine=", "hyperlink-format=", "ignore-file=", "generate=",
			"json", "smart-case", "ignore-case", "case-sensitive", "fixed-strings", "line-number", "no-line-number", "files", "files-with-matches", "files-without-match", "count",
			"count-matches", "hidden", "no-ignore", "follow", "word-regexp", "line-regexp", "invert-match", "only-matching", "multiline", "pcre2", "vimgrep", "with-filename",
			"no-filename", "heading", "no-heading", "null", "quiet", "stats", "trim", "text", "binary", "search-zip", "crlf", "debug", "trace", "unrestricted", "no-messages",
			"passthru", "column", "byte-offset", "help", "version"}},
	"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec,
	"git": {short: "C:c:pPhv", code: "c", permute: false, dashdash: true,
		long: []string{"exec-path?", "git-dir=", "work-tree=", "namespace=", "super-prefix=", "config-env=", "bare", "no-replace-objects", "literal-pathspecs", "glob-pathspecs",
			"noglob-pathspecs", "icase-pathspecs", "no-optional-locks", "paginate", "no-pager", "html-path", "man-path", "info-path", "list-cmds=", "attr-source=", "version", "help", "no-advice"},
		codeLong: []string{"exec-path", "config-env"},
		subs:     gitSubs},
	"curl": {short: "A:b:c:C:d:D:e:E:F:H:K:m:o:P:Q:r:t:T:u:U:w:x:X:Y:y:z:#0123456fGgIiJjkLlMNnOpqRsSvVZ", codeLong: []string{"engine"}, permute: true, dashdash: true,
		long: []string{"max-time=", "connect-timeout=", "output=", "header=", "data=", "data-raw=", "data-binary=", "data-urlencode=", "user=", "request=", "url=", "config=", "cert=",
			"key=", "cacert=", "proxy=", "user-agent=", "referer=", "cookie=", "cookie-jar=", "write-out=", "form=", "upload-file=", "retry=", "range=", "dump-header=", "engine=",
			"silent", "show-error", "verbose", "location", "fail", "include", "head", "insecure", "compressed", "get", "http1.1", "http2", "ipv4", "ipv6", "help", "version"}},
	"golangci-lint": {short: "hv", permute: true, dashdash: true, long: []string{"color=", "config=", "no-config", "verbose", "help", "version"}, codeLong: []string{"config"}, code: "c",
		subs: map[string]*spec{"run": {short: "c:D:E:e:j:np:vh", code: "c", codeLong: []string{"config"}, permute: true, dashdash: true,
			long: []string{"fix", "config=", "no-config", "enable=", "disable=", "enable-only=", "presets=", "fast-only", "concurrency=", "timeout=", "tests", "build-tags=",
				"out-format=", "new", "new-from-rev=", "new-from-patch=", "whole-files", "allow-parallel-runners", "allow-serial-runners", "max-issues-per-linter=",
				"max-same-issues=", "show-stats", "sort-results", "path-prefix=", "modules-download-mode=", "issues-exit-code=", "verbose", "color=", "help"}}}},
	"cat":       {short: "AbeEnstTuv", permute: true, dashdash: true},
	"head":      {short: "c:n:qvz", permute: true, dashdash: true, long: []string{"bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated", "help", "version"}},
	"tail":      {short: "c:n:fFqs:vz", permute: true, dashdash: true, long: []string{"bytes=", "lines=", "follow?", "pid=", "retry", "sleep-interval=", "quiet", "silent", "verbose", "zero-terminated", "help", "version"}},
	"wc":        {short: "clmwL", permute: true, dashdash: true, long: []string{"bytes", "chars", "lines", "words", "max-line-length", "files0-from=", "total=", "help", "version"}},
	"sort":      {short: "bcCdfghik:mMno:rRsS:t:T:uVzy", permute: true, dashdash: true, long: []string{"key=", "output=", "buffer-size=", "field-separator=", "temporary-directory=", "compress-program=", "parallel=", "files0-from=", "random-source=", "sort=", "batch-size="}, codeLong: []string{"compress-program"}},
	"uniq":      {short: "cdDf:is:uw:z", permute: true, dashdash: true},
	"cut":       {short: "b:c:d:f:nsz", permute: true, dashdash: true, long: []string{"bytes=", "characters=", "delimiter=", "fields=", "complement", "only-delimited", "output-delimiter=", "zero-terminated", "help", "version"}},
	"ls":        {short: "aAbBcCdDfFgGhHiI:klLmnNopqQrRsStT:uUvw:xXZ1", permute: true, dashdash: true},
	"cp":        {short: "abdfHiLlnPprsS:t:TuvxZ", permute: true, dashdash: true},
	"mv":        {short: "bfinS:t:TuvZ", permute: true, dashdash: true},
	"rm":        {short: "dfiIrRv", permute: true, dashdash: true},
	"mkdir":     {short: "m:pvZ", permute: true, dashdash: true},
	"touch":     {short: "acd:fhmr:t:", permute: true, dashdash: true},
	"ln":        {short: "bdfFiLnPrsS:t:Tv", permute: true, dashdash: true},
	"stat":      {short: "c:fLt", permute: true, dashdash: true, long: []string{"format=", "printf=", "dereference", "file-system", "terse", "cached=", "help", "version"}},
	"du":        {short: "0abcd:DhHklLmsSxX:t:B:", permute: true, dashdash: true},
	"df":        {short: "aB:hHiklPt:Tx:v", permute: true, dashdash: true},
	"realpath":  {short: "eLmPqsz", permute: true, dashdash: true, long: []string{"relative-to=", "relative-base="}},
	"readlink":  {short: "efmnqsvz", permute: true, dashdash: true},
	"tee":       {short: "aip", permute: true, dashdash: true},
	"base64":    {short: "diw:", permute: true, dashdash: true},
	"sha256sum": {short: "bctwz", permute: true, dashdash: true},
	"sha1sum":   {short: "bctwz", permute: true, dashdash: true},
	"md5sum":    {short: "bctwz", permute: true, dashdash: true},
	"tr":        {short: "cCdst", permute: true, dashdash: true},
	"nl":        {short: "b:d:f:h:i:l:n:ps:v:w:", permute: true, dashdash: true},
	"tac":       {short: "brs:", permute: true, dashdash: true},
	"diff":      {short: "aBbcC:dD:eEfF:hiI:lL:nNpPqrsS:tTuU:vwWx:X:y", permute: true, dashdash: true},
	"csvlook":   csvkitSpec, "csvstat": csvkitSpec, "csvjoin": csvkitSpec, "csvcut": csvkitSpec, "csvgrep": csvkitSpec,
	"csvsort": csvkitSpec, "csvjson": csvkitSpec, "csvformat": csvkitSpec, "csvclean": csvkitSpec, "csvstack": csvkitSpec, "in2csv": csvkitSpec,
}

var grepSpec = &spec{short: "0123456789A:B:C:D:d:e:f:m:X:EFGHhIiJLlNnoPqRrsTUuVvwxyZz", permute: true, dashdash: true,
	long: []string{"regexp=", "file=", "after-context=", "before-context=", "context=", "devices=", "directories=", "binary-files=", "label=", "max-count=", "include=", "exclude=",
		"exclude-from=", "exclude-dir=", "color?", "colour?", "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "ignore-case", "no-ignore-case", "word-regexp",
		"line-regexp", "null-data", "no-messages", "invert-match", "version", "help", "byte-offset", "line-number", "line-buffered", "with-filename", "no-filename",
		"only-matching", "quiet", "silent", "recursive", "dereference-recursive", "text", "files-without-match", "files-with-matches", "count", "initial-tab", "null"}}

// csvkitSpec is the union of csvkit's options (argparse: "--" ends them;
// an option name may be abbreviated).
var csvkitSpec = &spec{short: "d:tq:u:bp:z:e:SHK:vlILa:c:C:g:m:r:y:n", permute: true, dashdash: true,
	long: []string{"delimiter=", "tabs", "quotechar=", "quoting=", "doublequote", "escapechar=", "maxfieldsize=", "encoding=", "locale=", "skipinitialspace", "blanks", "null-value=",
		"date-format=", "datetime-format=", "no-header-row", "skip-lines=", "verbose", "linenumbers", "zero", "version", "help", "no-inference", "add-bom", "columns=", "not-columns=",
		"outer", "left", "right", "max-rows=", "max-columns=", "max-column-width=", "max-precision=", "no-number-ellipsis", "snifflimit=", "names", "delete-empty-rows",
		"reverse", "match=", "regex=", "file=", "invert-match", "any-match", "csv", "json", "count", "freq", "freq-count=", "len", "max", "mean", "median", "min", "nulls",
		"stdev", "sum", "type", "unique", "maxlength", "decimal-format=", "no-grouping-separator", "indent=", "key=", "lat=", "lon=", "type=", "geometry=", "crs=", "no-bbox",
		"stream", "format=", "schema=", "sheet=", "write-sheets=", "use-sheet-names", "groups=", "group-name=", "filenames", "out-delimiter=", "out-tabs", "out-quotechar=",
		"out-quoting=", "out-doublequote", "out-escapechar=", "out-lineterminator=", "out-no-header-row"}}

// gitSubs are the git subcommands the guard knows: none runs a program
// named by an argument (git bisect run, submodule foreach and difftool
// -x do, and stay unknown).
var gitSubs = map[string]*spec{
	"blame": {short: "bL:ltS:sepwM::C::hcfn", permute: true, dashdash: true,
		long: []string{"incremental", "porcelain", "line-porcelain", "root", "show-stats", "progress", "score-debug", "show-name", "show-number", "show-email", "ignore-rev=",
			"ignore-revs-file=", "color-lines", "color-by-age", "minimal", "contents=", "date=", "encoding=", "reverse=", "abbrev?", "first-parent"}},
	"log":      gitLogSpec,
	"show":     gitLogSpec,
	"diff":     gitLogSpec,
	"shortlog": {short: "nsecw::", permute: true, dashdash: true},
	"status":   {short: "sbvuzM::", permute: true, dashdash: true},
	"ls-files": {short: "cdmoiksuvtfzX:x:", permute: true, dashdash: true},
	"rev-parse": {permute: true, dashdash: true,
		long: []string{"verify", "quiet", "short?", "abbrev-ref?", "symbolic", "symbolic-full-name", "show-toplevel", "git-dir", "is-inside-work-tree", "all", "branches?", "tags?"}},
	"grep": {short: "0123456789A:B:C:e:f:m:O::abcEFGhHiIlLnopPqrvwWz", code: "O", codeLong: []string{"open-files-in-pager"}, permute: true, dashdash: true,
		long: []string{"regexp=", "file=", "after-context=", "before-context=", "context=", "max-count=", "max-depth=", "threads=", "open-files-in-pager?", "cached", "untracked",
			"no-index", "recurse-submodules", "ignore-case", "word-regexp", "line-number", "count", "fixed-strings", "extended-regexp", "perl-regexp", "invert-match"}},
	"describe": {permute: true, dashdash: true, long: []string{"all", "tags", "contains", "abbrev=", "candidates=", "exact-match", "debug", "long", "match=", "exclude=", "always", "first-parent", "dirty?", "broken?"}},
	"ls-tree":  {short: "dlrtz", permute: true, dashdash: true},
	"cat-file": {short: "tsepS", permute: true, dashdash: true},
	"add":      {short: "nvfipueAN", permute: true, dashdash: true},
	"rm":       {short: "fnrq", permute: true, dashdash: true},
	"restore":  {short: "s:pWSq", permute: true, dashdash: true},
}

var gitLogSpec = &spec{short: "n:L:S:G:O:U:l:M::C::B::pPsuzwbaRrtcmiEF", permute: true, dashdash: true,
	long: []string{"max-count=", "skip=", "since=", "after=", "until=", "before=", "author=", "committer=", "grep=", "format=", "pretty?", "oneline", "stat?", "numstat", "shortstat",
		"name-only", "name-status", "patch", "no-patch", "graph", "decorate?", "abbrev-commit", "follow", "reverse", "all", "merges", "no-merges", "first-parent", "cached", "staged",
		"color?", "no-color", "word-diff?", "unified=", "output=", "relative?", "date=", "diff-filter=", "ignore-space-change", "ignore-all-space", "no-ext-diff", "no-textconv",
		"summary", "check", "full-index", "binary", "raw", "minimal", "patience", "histogram", "exit-code", "quiet"}}

// programs is every spec by name.
var programs = func() map[string]*spec {
	m := map[string]*spec{}
	for _, t := range []map[string]*spec{wrappers, interpreters, builtins, plainPrograms} {
		for k, v := range t {
			m[k] = v
		}
	}
	for _, n := range []string{"bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "oksh", "loksh"} {
		m[n] = interpreters["sh"]
	}
	for _, n := range []string{"python", "python2", "pypy", "pypy3"} {
		m[n] = interpreters["python3"]
	}
	for _, n := range []string{"gawk", "mawk", "nawk", "original-awk", "busybox-awk"} {
		m[n] = interpreters["awk"]
	}
	m["nodejs"] = interpreters["node"]
	m["luajit"] = interpreters["lua"]
	m["powershell"] = interpreters["pwsh"]
	m["pwsh-preview"] = interpreters["pwsh"]
	m["["] = builtins["test"]
	m["readarray"] = builtins["mapfile"]
	m["compgen"] = builtins["complete"]
	m["gsed"] = interpreters["sed"]
	indexLongs(m)
	return m
}()

// executables are the programs the guard knows that exist as files to
// run, not only as shell builtins: what a wrapper it does not know could
// run (wrappedSuffixes).
var executables = func() map[string]bool {
	m := map[string]bool{}
	for name, s := range programs {
		builtin := false
		for _, b := range builtins {
			builtin = builtin || b == s
		}
		switch name {
		case "command", "exec", "builtin":
			builtin = true
		}
		if !builtin {
			m[name] = true
		}
	}
	return m
}()
