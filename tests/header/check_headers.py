#!/usr/bin/env python3
"""Checks of the public C headers (include/emcp.h and every binding header).

    check_headers.py names     every name a header exports is prefixed
    check_headers.py compile   every header compiles on its own, strictly,
                               and next to firmware names such as SAMPLING

Headers: every emcp*.h under include/, examples-c/, bindings/ and
zephyr/include/ (globbed, so a header added later is checked too).

`names`: the exported names are the macros (#define), typedef names,
struct/union/enum tags the header defines, enum constants, and function and
variable names. Each must start with MCP_, mcp_, EMCP_ or emcp_; the include
guard and the few names in ALLOWED are the only exceptions. A header is
preprocessed (gcc -E -dD) and what comes from the header itself is parsed;
its text, with the preprocessor lines dropped, is parsed as well, so names in
#if branches this host does not take (e.g. __ZEPHYR__) are checked too, and a
header whose dependencies are missing is still checked.

`compile`: each header is compiled as C99 (-pedantic), C11 and C++17 with
-Wall -Wextra -Werror by gcc/g++ (and clang/clang++ when installed): alone,
and in translation units that define IDLE, SAMPLING, DONE, ROOTS,
ELICITATION, MAC_LEN and rust_eh_personality themselves before and after the
include. A header whose dependencies (libcoap, Mbed TLS, coreMQTT, Zephyr...)
are not installed is skipped, with the missing header named.

Extra compiler flags for the dependencies (e.g. -isystem for a coreMQTT
checkout) can be given in the environment variable EMCP_HEADER_CFLAGS.
Exit status: 0 when every check passed, 1 otherwise.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GLOBS = ["include/**/emcp*.h", "examples-c/**/emcp*.h", "bindings/**/emcp*.h",
         "zephyr/include/**/emcp*.h"]
PREFIX = re.compile(r"^(MCP_|mcp_|EMCP_|emcp_)")

# Unprefixed names a header may declare, each with the reason.
ALLOWED = {
    # emcp_http.h, Zephyr branch: typedefs that nodejs http_parser has and
    # Zephyr's copy of it leaves out, and poll()'s nfds_t, which Zephyr's
    # socket API lacks; they complete the dependency's own API.
    "http_parser": "http_parser's own typedef (Zephyr's copy lacks it)",
    "http_parser_settings": "http_parser's own typedef (Zephyr's copy lacks it)",
    "nfds_t": "POSIX poll()'s type (Zephyr's socket API lacks it)",
}

# Headers that need a configuration macro to be complete: each entry is a
# list of variants, each variant a list of extra flags. Others: one variant.
VARIANTS = {
    "emcp_http.h": [[], ["-DEMCP_HTTP_WITH_MBEDTLS=1"]],
    "emcp_http_tls.h": [[], ["-DEMCP_HTTP_WITH_MBEDTLS=1"]],
}

KEYWORDS = set("""
auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof
static struct switch typedef union unsigned void volatile while _Alignas
_Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert
_Thread_local bool __restrict __restrict__ __inline __inline__ __const
__volatile__ __signed__ __extension__ __attribute__ __asm__ __asm asm
__declspec __cdecl __int128 static_assert
""".split())

TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)
  | (?P<punct>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\.\.\.|[-+*/%&|^!~<>=?:;,.(){}\[\]#])
""", re.X)


def headers():
    found = set()
    for g in GLOBS:
        for p in glob.glob(os.path.join(ROOT, g), recursive=True):
            found.add(os.path.realpath(p))
    return sorted(found)


def rel(p):
    return os.path.relpath(p, ROOT)


def include_flags(all_headers):
    dirs = [os.path.join(ROOT, "include")]
    for h in all_headers:
        d = os.path.dirname(h)
        if d not in dirs:
            dirs.append(d)
    return ["-I" + d for d in dirs] + shlex.split(os.environ.get("EMCP_HEADER_CFLAGS", ""))


def tokenize(text):
    out = []
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            out.append(text[pos])  # a stray character: keep it as punctuation
            pos += 1
            continue
        pos = m.end()
        if m.lastgroup != "ws":
            out.append(m.group())
    return out


def strip_comments(text):
    def repl(m):
        s = m.group()
        if s.startswith("/"):
            return "\n" * s.count("\n") if s.startswith("/*") else ""
        return s
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  repl, text, flags=re.S)


def skip_group(toks, i):
    """toks[i] is an opening bracket: the index after its matching closer."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[toks[i]]]
    i += 1
    while i < len(toks) and stack:
        t = toks[i]
        if t in pairs:
            stack.append(pairs[t])
        elif stack and t == stack[-1]:
            stack.pop()
        i += 1
    return i


def statements(toks):
    """Top-level declarations: token lists split at ';' (and after a
    function body), with `extern "C" {` wrappers left out."""
    stmts, cur, i = [], [], 0
    while i < len(toks):
        t = toks[i]
        if t == "extern" and i + 2 < len(toks) and toks[i + 1].startswith('"') and toks[i + 2] == "{":
            i += 3  # extern "C" { ... }: its contents are top level
            continue
        if t == "}" and not cur:
            i += 1  # the closing brace of extern "C"
            continue
        if t in "({[":
            j = skip_group(toks, i)
            cur.extend(toks[i:j])
            i = j
            if t == "{" and len(cur) > 1 and toks[i - 1] == "}" and _is_function_definition(cur):
                stmts.append(cur)
                cur = []
            continue
        if t == ";":
            stmts.append(cur)
            cur = []
        else:
            cur.append(t)
        i += 1
    if cur:
        stmts.append(cur)
    return stmts


def _is_function_definition(cur):
    # `... ) { body }` with the body just appended: find where it started.
    depth = 0
    for k in range(len(cur) - 1, -1, -1):
        if cur[k] == "}":
            depth += 1
        elif cur[k] == "{":
            depth -= 1
            if depth == 0:
                return k > 0 and cur[k - 1] == ")"
    return False


def drop_attributes(toks):
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t in ("__attribute__", "__asm__", "__asm", "asm", "__declspec") and i + 1 < len(toks) and toks[i + 1] == "(":
            i = skip_group(toks, i + 1)
            continue
        if t == "__extension__":
            i += 1
            continue
        out.append(t)
        i += 1
    return out


def names_in_statement(stmt):
    """(name, kind) pairs a declaration defines."""
    stmt = drop_attributes(stmt)
    if not stmt or stmt[0] in ("_Static_assert", "static_assert"):
        return []
    found = []
    # Tags defined (struct X { ... }, or a lone `struct X;`), and enum
    # constants, anywhere in the statement, nested bodies included.
    for i, t in enumerate(stmt):
        if t in ("struct", "union", "enum") and i + 1 < len(stmt) and re.match(r"[A-Za-z_]", stmt[i + 1]):
            if (i + 2 < len(stmt) and stmt[i + 2] == "{") or len(stmt) == 2:
                found.append((stmt[i + 1], t + " tag"))
        if t == "enum":
            j = i + 1
            if j < len(stmt) and re.match(r"[A-Za-z_]", stmt[j]):
                j += 1
            if j < len(stmt) and stmt[j] == "{":
                end = skip_group(stmt, j)
                body = stmt[j + 1:end - 1]
                expect, k = True, 0
                while k < len(body):
                    b = body[k]
                    if b in "([{":
                        k = skip_group(body, k)
                        continue
                    if expect and re.match(r"[A-Za-z_]", b):
                        found.append((b, "enum constant"))
                        expect = False
                    elif b == ",":
                        expect = True
                    k += 1
    # The declarators, with every { body } removed.
    flat, i = [], 0
    while i < len(stmt):
        if stmt[i] == "{":
            i = skip_group(stmt, i)
            continue
        flat.append(stmt[i])
        i += 1
    is_typedef = "typedef" in flat
    parts, cur, i = [], [], 0
    while i < len(flat):
        if flat[i] in "([":
            j = skip_group(flat, i)
            cur.extend(flat[i:j])
            i = j
            continue
        if flat[i] == ",":
            parts.append(cur)
            cur = []
        else:
            cur.append(flat[i])
        i += 1
    parts.append(cur)
    for part in parts:
        name, is_function = declarator_name(part)
        if name:
            found.append((name, "typedef" if is_typedef else "function" if is_function else "variable"))
    return found


def declarator_name(toks):
    """(name, is_function) of one declarator, or (None, False)."""
    i = 0
    while i < len(toks):
        # A parenthesised declarator, as in `int (*name)(void)` or `(*name)[4]`.
        if toks[i] == "(" and i + 1 < len(toks) and toks[i + 1] in ("*", "^", "&"):
            end = skip_group(toks, i)
            inner = toks[i + 1:end - 1]
            return (declarator_name(inner[1:])[0], False) if inner else (None, False)
        if toks[i] in "([=:":
            break
        i += 1
    head = toks[:i]
    idents = [(k, t) for k, t in enumerate(head) if re.match(r"[A-Za-z_]\w*$", t) and t not in KEYWORDS]
    if not idents:
        return None, False
    k, name = idents[-1]
    if k > 0 and head[k - 1] in ("struct", "union", "enum"):
        return None, False  # `struct X` alone names a tag, handled above
    return name, i < len(toks) and toks[i] == "("


def guard_of(text):
    m = re.search(r"^\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+\1\b", strip_comments(text), re.M)
    return m.group(1) if m else None


def preprocess(header, incs, extra):
    """(macros, tokens) of what `header` itself contributes, or (None, error)."""
    with tempfile.TemporaryDirectory() as d:
        tu = os.path.join(d, "tu.c")
        with open(tu, "w") as f:
            f.write('#include "%s"\n' % header)
        r = subprocess.run(["gcc", "-E", "-dD", "-std=c11"] + incs + extra + [tu],
                           capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    macros, lines, current = [], [], None
    for line in r.stdout.splitlines():
        m = re.match(r'#\s*(\d+)\s+"([^"]*)"', line)
        if m:
            current = os.path.realpath(m.group(2)) if not m.group(2).startswith("<") else None
            continue
        if current != header:
            continue
        m = re.match(r"#define\s+([A-Za-z_]\w*)", line)
        if m:
            macros.append(m.group(1))
        elif line.startswith("#"):
            continue
        else:
            lines.append(line)
    return macros, tokenize("\n".join(lines))


def textual(header):
    """(macros, tokens) from the header's text: every #if branch at once."""
    text = strip_comments(open(header).read())
    text = re.sub(r"\\\n", " ", text)
    macros, body = [], []
    for line in text.splitlines():
        m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)", line)
        if m:
            macros.append(m.group(1))
        elif not line.lstrip().startswith("#"):
            body.append(line)
    return macros, tokenize("\n".join(body))


def check_names(all_headers):
    incs = include_flags(all_headers)
    bad = 0
    for h in all_headers:
        guard = guard_of(open(h).read())
        exported = {}
        sources = [("text", textual(h))]
        for extra in VARIANTS.get(os.path.basename(h), [[]]):
            macros, toks = preprocess(h, incs, extra)
            if macros is None:
                errs = [ln for ln in toks.splitlines() if "error" in ln] or ["failed"]
                first = errs[0]
                print("note: %s: not preprocessed%s (%s); its text is checked"
                      % (rel(h), " with " + " ".join(extra) if extra else "", first))
            else:
                sources.append(("gcc -E " + " ".join(extra), (macros, toks)))
        for _, (macros, toks) in sources:
            for name in macros:
                exported.setdefault(name, "macro")
            for stmt in statements(toks):
                for name, kind in names_in_statement(stmt):
                    exported.setdefault(name, kind)
        wrong = sorted((n, k) for n, k in exported.items()
                       if not PREFIX.match(n) and n != guard and n not in ALLOWED)
        for n, k in wrong:
            print("FAIL %s: %s `%s` has no MCP_/mcp_/EMCP_/emcp_ prefix" % (rel(h), k, n))
        print("%s %s: %d exported names%s" % ("FAIL" if wrong else "ok  ", rel(h), len(exported),
                                              ", %d unprefixed" % len(wrong) if wrong else ""))
        bad += len(wrong)
    return bad == 0


CLASH = """
enum adc_state { IDLE, SAMPLING, DONE };
static int MAC_LEN = 32;
static int rust_eh_personality = 1;
"""
CLASH_MACROS = """
#define ROOTS 3
#define ELICITATION "form"
#define MAC_LEN_BYTES 32
"""
USE = """
int emcp_header_check_use(void);
int emcp_header_check_use(void)
{
    return (int)IDLE + (int)SAMPLING + (int)DONE + ROOTS + MAC_LEN + rust_eh_personality
           + (int)sizeof(ELICITATION);
}
"""


def compilers():
    found = []
    for c, cxx in (("gcc", "g++"), ("clang", "clang++")):
        if shutil.which(c):
            found.append((c, ["-x", "c", "-std=c99", "-pedantic"], "C99"))
            found.append((c, ["-x", "c", "-std=c11"], "C11"))
        if shutil.which(cxx):
            found.append((cxx, ["-x", "c++", "-std=c++17"], "C++17"))
    return found


def check_compile(all_headers):
    incs = include_flags(all_headers)
    tus = {
        "alone": '#include "{h}"\nint emcp_header_check_use(void);\n'
                 'int emcp_header_check_use(void) { return 0; }\n',
        "firmware names before": CLASH_MACROS + CLASH + '#include "{h}"\n' + USE,
        "firmware names after": '#include "{h}"\n' + CLASH_MACROS + CLASH + USE,
    }
    ok = True
    for h in all_headers:
        for extra in VARIANTS.get(os.path.basename(h), [[]]):
            label = rel(h) + (" (" + " ".join(extra) + ")" if extra else "")
            macros, err = preprocess(h, incs, extra)
            if macros is None:
                missing = re.search(r"fatal error: ([^:]+): No such file", err)
                if missing:
                    print("SKIP %s: needs <%s>, not installed here" % (label, missing.group(1)))
                    continue
                print("FAIL %s: does not preprocess:\n%s" % (label, err))
                ok = False
                continue
            failures = []
            with tempfile.TemporaryDirectory() as d:
                for cc, std, std_name in compilers():
                    for tu_name, tu in tus.items():
                        src = os.path.join(d, "tu.c")
                        with open(src, "w") as f:
                            f.write(tu.replace("{h}", h))
                        cmd = [cc] + std + ["-Wall", "-Wextra", "-Werror", "-c", "-o", os.devnull] + incs + extra + [src]
                        r = subprocess.run(cmd, capture_output=True, text=True)
                        if r.returncode != 0:
                            failures.append("%s %s, %s:\n%s" % (cc, std_name, tu_name,
                                                                "\n".join(r.stderr.splitlines()[:6])))
                failures += cxx_linkage(h, incs, extra, d)
            for fmsg in failures:
                print("FAIL %s: %s" % (label, fmsg))
            n = len(compilers()) * len(tus)
            print("%s %s: %s (%d compilations: %s; and C++ linkage)" % (
                "FAIL" if failures else "ok  ", label,
                "%d failed" % len(failures) if failures else "all passed", n,
                ", ".join(sorted({"%s %s" % (c, s) for c, _, s in compilers()}))))
            ok = ok and not failures
    return ok


def cxx_linkage(h, incs, extra, d):
    """Failures when a function of `h` gets C++ linkage in a C++ program
    (a missing extern "C"): its symbol would be mangled and never link."""
    cxx = next((c for c in ("g++", "clang++") if shutil.which(c)), None)
    if cxx is None or not shutil.which("readelf"):
        return []
    _, toks = preprocess(h, incs, extra)
    funcs = sorted({n for st in statements(toks) for n, k in names_in_statement(st) if k == "function"})
    if not funcs:
        return []
    src, obj = os.path.join(d, "linkage.cc"), os.path.join(d, "linkage.o")
    with open(src, "w") as f:
        f.write('#include "%s"\nextern void (*emcp_header_check_refs[])();\n'
                'void (*emcp_header_check_refs[])() = {\n' % h)
        f.write("".join("    reinterpret_cast<void (*)()>(&%s),\n" % n for n in funcs))
        f.write("};\n")
    r = subprocess.run([cxx, "-std=c++17", "-c", "-o", obj] + incs + extra + [src],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return ["%s C++17, taking each function's address:\n%s" % (cxx, r.stderr[:600])]
    syms = subprocess.run(["readelf", "-sW", obj], capture_output=True, text=True).stdout
    have = {line.split()[-1] for line in syms.splitlines() if len(line.split()) >= 8}
    wrong = [n for n in funcs if n not in have]
    if wrong:
        return ["%s C++17: C++ linkage (no extern \"C\"), so C++ callers cannot link: %s"
                % (cxx, ", ".join(wrong))]
    return []


SELFTEST = r"""
#ifndef SELF_H
#define SELF_H
#include <stddef.h>
#define MCP_OK 1
#define BAD_MACRO(x) ((x) + 1)
#ifdef __cplusplus
extern "C" {
#endif
typedef struct mcp_ok_t { int member_not_exported; struct pos { int x; } p; } bad_typedef_t;
struct bad_tag;
union bad_union { int a; float b; };
enum bad_enum_tag { BAD_CONST = 1, mcp_ok_const = (1 << 2), OTHER_BAD };
typedef int (*bad_fn_ptr)(void *user, size_t len);
extern int bad_variable, mcp_ok_variable;
void bad_function(struct mcp_ok_t *server, int (*cb)(int param_not_exported));
static inline int bad_inline(int v) { return v + 1; }
int mcp_ok_function(const char *text, size_t len);
#ifdef __cplusplus
}
#endif
#endif
"""
SELFTEST_BAD = {"BAD_MACRO", "bad_typedef_t", "pos", "bad_tag", "bad_union", "bad_enum_tag",
                "BAD_CONST", "OTHER_BAD", "bad_fn_ptr", "bad_variable", "bad_function",
                "bad_inline"}


def selftest():
    """The extractor finds every kind of exported name, and only those."""
    with tempfile.TemporaryDirectory() as d:
        h = os.path.realpath(os.path.join(d, "self.h"))
        with open(h, "w") as f:
            f.write(SELFTEST)
        ok = True
        for how, (macros, toks) in (("gcc -E", preprocess(h, [], [])), ("text", textual(h))):
            names = set(macros) | {n for st in statements(toks) for n, _ in names_in_statement(st)}
            bad = {n for n in names if not PREFIX.match(n) and n != guard_of(SELFTEST)}
            if bad != SELFTEST_BAD:
                print("FAIL extractor (%s): missed %s, wrongly found %s"
                      % (how, sorted(SELFTEST_BAD - bad), sorted(bad - SELFTEST_BAD)))
                ok = False
            else:
                print("ok   extractor (%s): all %d planted names found" % (how, len(bad)))
    return ok


def main(argv):
    if len(argv) != 2 or argv[1] not in ("names", "compile"):
        print(__doc__)
        return 2
    all_headers = headers()
    if not any(h.endswith("/include/emcp.h") for h in all_headers):
        print("FAIL: include/emcp.h not found under %s" % ROOT)
        return 1
    print("%d public headers: %s" % (len(all_headers), " ".join(rel(h) for h in all_headers)))
    if argv[1] == "names":
        passed = selftest() and check_names(all_headers)
    else:
        passed = check_compile(all_headers)
    print("header %s check: %s" % (argv[1], "passed" if passed else "FAILED"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
