package shelltmpl

import "strings"

// Response files and @file arguments (docs/run-guard.md §3). Many
// compilers, linkers and binutils replace an argument "@path" with the
// words written in the file at path, wherever it stands: gcc's
// -fsyntax-only {src} with src=@opts runs the options in opts (-wrapper
// PROG runs PROG). curl reads the data of -d, --json and friends from the
// file an "@" names. So for these programs a value starting with "@" is
// refused where it would start such an argument, as one starting with "-"
// is where it would start an option.

// AtRule says how a value at a placeholder is read as a file's name.
type AtRule uint8

const (
	// AtNone: "@" is only text there.
	AtNone AtRule = iota
	// AtStart: a value starting with "@" names a file whose text is read
	// instead (a response file of options, or curl's data).
	AtStart
	// AtBeforeEquals: "@" before the first "=" (name@file or @file)
	// names a file (curl --data-urlencode, --variable).
	AtBeforeEquals
	// AtFormValue: "@" or "<" right after the first "=" (name=@file)
	// names a file to upload or read (curl -F).
	AtFormValue
	// AtFormStart: the template wrote name= before the value, so "@" or
	// "<" at the value's start names a file (curl -F name={v}).
	AtFormStart
)

// ReadsFile reports whether value v, at a placeholder with rule r that
// starts its argument (or, for AtFormStart, follows its name=), would be
// read as the name of a file.
func (r AtRule) ReadsFile(v string) bool {
	switch r {
	case AtStart:
		return strings.HasPrefix(v, "@")
	case AtBeforeEquals:
		at := strings.IndexByte(v, '@')
		eq := strings.IndexByte(v, '=')
		return at >= 0 && (eq < 0 || at < eq)
	case AtFormValue:
		eq := strings.IndexByte(v, '=')
		return eq >= 0 && eq+1 < len(v) && (v[eq+1] == '@' || v[eq+1] == '<')
	case AtFormStart:
		return strings.HasPrefix(v, "@") || strings.HasPrefix(v, "<")
	}
	return false
}

// responseFilePrograms read "@file" arguments as response files, wherever
// they stand (libiberty's expandargv for the GNU toolchain, LLVM's
// ExpandResponseFiles, the JDK launcher and tools, rustc, the .NET and
// Swift drivers, tcc, emcc). Names are matched without a version suffix
// (gcc-12, clang++-17) or a target prefix (x86_64-linux-gnu-gcc).
var responseFilePrograms = map[string]bool{
	"gcc": true, "g++": true, "cc": true, "c++": true, "cpp": true, "gfortran": true, "gccgo": true, "gnat": true,
	"clang": true, "clang++": true, "clang-cl": true, "clang-cpp": true, "cl": true, "link": true, "tcc": true,
	"ld": true, "ld.bfd": true, "ld.gold": true, "ld.lld": true, "ld64.lld": true, "lld": true, "lld-link": true,
	"gold": true, "mold": true, "as": true, "ar": true, "nm": true, "objcopy": true, "objdump": true, "ranlib": true,
	"readelf": true, "size": true, "strings": true, "strip": true, "addr2line": true, "c++filt": true, "elfedit": true,
	"gprof": true, "dlltool": true, "windres": true,
	"llvm-ar": true, "llvm-nm": true, "llvm-objcopy": true, "llvm-objdump": true, "llvm-strip": true, "llvm-link": true,
	"llvm-ranlib": true, "llvm-readelf": true, "llvm-size": true, "llc": true, "opt": true,
	"javac": true, "java": true, "javadoc": true, "jar": true, "jlink": true, "jdeps": true, "jpackage": true, "jmod": true,
	"kotlinc": true, "scalac": true, "rustc": true, "rustdoc": true, "csc": true, "vbc": true, "dotnet": true,
	"msbuild": true, "swiftc": true, "swift": true, "emcc": true, "em++": true,
}

// readsResponseFiles reports a program in responseFilePrograms, by the
// base name of its word.
func readsResponseFiles(word string) bool {
	base := word[strings.LastIndexByte(word, '/')+1:]
	if responseFilePrograms[base] {
		return true
	}
	// gcc-12, clang++-17, ld.lld-15
	if i := strings.LastIndexByte(base, '-'); i > 0 && versionDigits(base[i+1:]) && responseFilePrograms[base[:i]] {
		return true
	}
	// x86_64-linux-gnu-gcc, aarch64-none-elf-ld (and with a version)
	for i := 0; i < len(base); i++ {
		if base[i] == '-' && i+1 < len(base) {
			rest := base[i+1:]
			if responseFilePrograms[rest] && strings.Count(base[:i], "-") >= 1 {
				return true
			}
			if j := strings.LastIndexByte(rest, '-'); j > 0 && versionDigits(rest[j+1:]) && responseFilePrograms[rest[:j]] && strings.Count(base[:i], "-") >= 1 {
				return true
			}
		}
	}
	return false
}

// versionDigits is a version like 12 or 3.4.
func versionDigits(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// curlAtOptions are curl's options whose argument names a file by "@"
// (curl(1)): data, JSON, headers, the write-out format, URL queries,
// form fields and url-encoded data.
var curlAtOptions = map[string]AtRule{
	"-d": AtStart, "--data": AtStart, "--data-ascii": AtStart, "--data-binary": AtStart, "--json": AtStart,
	"-H": AtStart, "--header": AtStart, "-w": AtStart, "--write-out": AtStart, "--url-query": AtBeforeEquals,
	"--data-urlencode": AtBeforeEquals, "--variable": AtBeforeEquals, "-F": AtFormValue, "--form": AtFormValue,
	"--proxy-header": AtStart,
}

// atRule works out the AtRule of a placeholder read by who, as the
// argument of option opt ("" when none), with the literal text lit
// before it in its word (lead: none, the value may start the argument).
func atRule(who reader, opt, lit string, lead bool) AtRule {
	if who.kind != readProgram {
		return AtNone
	}
	if readsResponseFiles(who.name) {
		if lead {
			return AtStart
		}
		return AtNone
	}
	base := who.name[strings.LastIndexByte(who.name, '/')+1:]
	if base != "curl" || who.sub != "" {
		return AtNone
	}
	if !lead {
		// --data={v}, -d{v}, or -F name={v}: the option glued to the value,
		// or literal text the option's argument starts with.
		opt, lit = gluedOption(lit, opt)
	}
	r, ok := curlAtOptions[opt]
	if !ok {
		return AtNone
	}
	switch {
	case lit == "":
		return r
	case r == AtFormValue && strings.Count(lit, "=") == 1 && strings.HasSuffix(lit, "="):
		return AtFormStart
	}
	return AtNone
}

// gluedOption splits the literal text before a value into the option it
// starts with and the text of that option's argument: "--data=" gives
// "--data" and "", "-dx" gives "-d" and "x". Text that starts with no
// option is the argument of opt, the option word before it.
func gluedOption(lit, opt string) (string, string) {
	switch {
	case strings.HasPrefix(lit, "--"):
		if name, arg, ok := strings.Cut(lit, "="); ok {
			return name, arg
		}
		return lit, ""
	case strings.HasPrefix(lit, "-") && len(lit) >= 2:
		// A cluster (-sd): the first letter that takes an argument
		// takes the rest of the word.
		sp := lookupProgram("curl")
		for i := 1; i < len(lit); i++ {
			if sp.shortArity(lit[i]) != argNone {
				return "-" + lit[i:i+1], lit[i+1:]
			}
		}
		return lit, ""
	}
	return opt, lit
}
