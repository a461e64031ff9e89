#!/usr/bin/env python3
"""Differential round-trip check of tb-opt against mlir-opt.

Usage:
    mlir-diff.py --tb-opt PATH --mlir-opt PATH [--invalid] [--timeout S]
                 [--chunk N ...] [--keep-temps] FILE

Splitting.  FILE is split into chunks at lines that START with ``// -----``
(MLIR's split marker; the marker line itself belongs to no chunk).  Each
chunk is written to its own temporary directory under the *basename* of FILE,
preceded by as many blank lines as FILE has before the chunk, so LINE NUMBERS
STAY FILE-RELATIVE, exactly as ``mlir-opt --split-input-file`` reports them.
Both tools run with that directory as working directory and the bare basename
as input path, so the locations they print (``loc("attr-dense.mlir":12:3)``)
do not depend on the temporary directory.  (Note: mlir-opt's own
--split-input-file splits at the marker text anywhere in a line, comments
included; a warning is printed when FILE has the marker in the middle of a
line, since the two splitters would disagree there.)

Valid mode (default), for each chunk:

  ref   = mlir-opt --allow-unregistered-dialect --mlir-print-op-generic
                   --mlir-print-debuginfo CHUNK
  plain = mlir-opt --allow-unregistered-dialect --mlir-print-op-generic CHUNK

  and for each tb-opt variant V:
      default : tb-opt --allow-unregistered-dialect
      generic : tb-opt --allow-unregistered-dialect --mlir-print-op-generic
                       --mlir-print-debuginfo
      local   : tb-opt --allow-unregistered-dialect --mlir-print-debuginfo
                       --mlir-print-local-scope
    ours = V(CHUNK)
    * mlir-opt (ref flags) on ours must equal ref byte-for-byte -- only for
      the variants that print debug info (without it, mlir-opt would invent
      locations pointing into *our* output, so the comparison is meaningless);
    * mlir-opt (plain flags) on ours must equal plain byte-for-byte;
    * V(ours) must equal ours byte-for-byte (tb-opt is idempotent).

  Lossy flags: mlir-opt itself does not round-trip everything under every
  flag set (with --mlir-print-local-scope it prints no {-# ... #-} resource
  trailer, so dense_resource blobs are lost).  When a comparison fails, the
  same pipeline is run with mlir-opt in place of tb-opt; if that differs from
  the reference too and tb-opt's result equals it, the check passes with a
  note ("tb-opt loses exactly what mlir-opt loses").

Invalid mode (--invalid), for each chunk: both tools (run with
--allow-unregistered-dialect only) must exit non-zero without crashing, and
the line of the first ``FILE:LINE:COL: error:`` diagnostic must be the same
(messages and columns are not compared; both messages are printed on a
mismatch).  If mlir-opt's first error has no location, tb-opt's must not
have one either.

Crashes.  A run killed by a signal, printing Rust's "panicked at", exiting
with 101 (Rust's panic status) or 129..192, or printing an LLVM stack dump,
is always a failure, and so is a timeout (--timeout, default 60 s per
subprocess; the subprocess's whole process group is killed).

Exit status: 0 when every chunk passes, 1 otherwise; the last line printed is
a one-line summary "mlir-diff PASS|FAIL: FILE (mode): N chunk(s), ...".
"""

import argparse
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

SPLIT_RE = re.compile(r"^// -----")
ERROR_RE = re.compile(r"^(.*?):(\d+):(\d+): error:", re.M)
BARE_ERROR_RE = re.compile(r"^(?:.*?: )?error:", re.M)

BASE_FLAGS = ["--allow-unregistered-dialect"]
REF_FLAGS = BASE_FLAGS + ["--mlir-print-op-generic", "--mlir-print-debuginfo"]
PLAIN_FLAGS = BASE_FLAGS + ["--mlir-print-op-generic"]

# (name, tb-opt flags, output carries debug info)
VARIANTS = [
    ("default", BASE_FLAGS, False),
    ("generic", BASE_FLAGS + ["--mlir-print-op-generic", "--mlir-print-debuginfo"], True),
    ("local", BASE_FLAGS + ["--mlir-print-debuginfo", "--mlir-print-local-scope"], True),
]


class Result:
    def __init__(self, argv, rc, out, err, timed_out=False, missing=False):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err
        self.timed_out, self.missing = timed_out, missing

    def crash_reason(self):
        """Why this run counts as a crash, or None."""
        if self.missing:
            return "could not execute: " + self.err.strip()
        if self.timed_out:
            return "timed out"
        if self.rc < 0:
            return "killed by signal %d" % -self.rc
        if "panicked at" in self.err or "panicked at" in self.out:
            return "Rust panic"
        if self.rc == 101:
            return "exit code 101 (Rust panic?)"
        if "Stack dump:" in self.err or "PLEASE submit a bug report" in self.err:
            return "LLVM crash (stack dump)"
        if self.rc >= 128 + 1 and self.rc <= 128 + 64:
            return "exit code %d (signal %d?)" % (self.rc, self.rc - 128)
        return None

    def describe(self):
        return " ".join(self.argv)


def run(argv, cwd, timeout):
    """Runs argv; on timeout kills its whole process group (a wrapper
    script's children included) so nothing is left behind."""
    try:
        p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        return Result(argv, -1, "", str(e), missing=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(p)
        try:
            out, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
        return Result(argv, -1, _dec(out), _dec(err), timed_out=True)
    except BaseException:
        _kill_group(p)
        raise
    return Result(argv, p.returncode, _dec(out), _dec(err))


def _kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        p.kill()


def _dec(b):
    if b is None:
        return ""
    if isinstance(b, str):
        return b
    return b.decode("utf-8", errors="surrogateescape")


def split_chunks(text):
    """Returns [(chunk_index, first_line_number, padded_text)].

    padded_text has (first_line_number - 1) leading newlines so that line
    numbers inside it are the line numbers of FILE.
    """
    lines = text.splitlines(keepends=True)
    chunks, cur, start = [], [], 1
    for i, line in enumerate(lines, 1):
        if SPLIT_RE.match(line):
            chunks.append((start, cur))
            cur, start = [], i + 1
        else:
            cur.append(line)
    chunks.append((start, cur))
    out = []
    for n, (start, body) in enumerate(chunks, 1):
        out.append((n, start, "\n" * (start - 1) + "".join(body)))
    return out


def first_error(res):
    """(line or None, message line) of the first error diagnostic."""
    m = ERROR_RE.search(res.err)
    b = BARE_ERROR_RE.search(res.err)
    if m and (not b or m.start() <= b.start()):
        end = res.err.find("\n", m.start())
        return int(m.group(2)), res.err[m.start(): end if end >= 0 else None]
    if b:
        end = res.err.find("\n", b.start())
        return None, res.err[b.start(): end if end >= 0 else None]
    return None, None


def udiff(a, b, a_name, b_name):
    return "".join(difflib.unified_diff(a.splitlines(keepends=True),
                                        b.splitlines(keepends=True),
                                        a_name, b_name))


class Checker:
    def __init__(self, args):
        self.args = args
        self.failures = 0
        self.checks = 0
        self.label = os.path.basename(args.file)
        # Tools run inside per-chunk directories: make their paths absolute.
        self.tb_opt = _resolve(args.tb_opt)
        self.mlir_opt = _resolve(args.mlir_opt)

    def fail(self, chunk, msg):
        self.failures += 1
        print("FAIL: %s chunk %d (starting at line %d): %s"
              % (self.label, chunk[0], chunk[1], msg.rstrip("\n")))

    def tool(self, which, flags, name, cwd):
        path = self.tb_opt if which == "tb-opt" else self.mlir_opt
        return run([path] + flags + [name], cwd, self.args.timeout)

    def check_clean(self, chunk, res, what):
        """Fails on crash / error exit; returns True when res is usable."""
        self.checks += 1
        why = res.crash_reason()
        if why:
            self.fail(chunk, "%s %s (%s)\n  command: %s\n%s"
                      % (what, _verb(res), why, res.describe(), _indent(res.err)))
            return False
        if res.rc != 0:
            self.fail(chunk, "%s failed with exit code %d\n  command: %s\n%s"
                      % (what, res.rc, res.describe(), _indent(res.err)))
            return False
        return True

    def compare(self, chunk, expected, got, exp_name, got_name, what, hint=""):
        self.checks += 1
        if expected == got:
            return True
        self.fail(chunk, "%s\n%s%s" % (what, udiff(expected, got, exp_name, got_name), hint))
        return False

    # -- valid mode ---------------------------------------------------------
    def own_round_trip(self, chunk, workdir, vname, vflags, check_flags, cache):
        """mlir-opt(check_flags)(mlir-opt(vflags)(chunk)), or None.

        This is what the round trip gives when mlir-opt itself plays the part
        of tb-opt.  It differs from the direct reference when mlir-opt's own
        printing with vflags loses information (--mlir-print-local-scope, for
        one, does not print the dialect_resources trailer).
        """
        key = (vname, tuple(check_flags))
        if key in cache:
            return cache[key]
        cache[key] = None
        own = cache.get(vname)
        if own is None:
            own = self.tool("mlir-opt", vflags, self.label, workdir)
            cache[vname] = own
        if own.rc != 0 or own.crash_reason():
            return None
        # Under tb-opt's output file name (in a directory of its own), so that the
        # locations a lossy custom form leaves to the re-parse name the same file.
        own_dir = os.path.join(workdir, "mlir-opt-own")
        os.makedirs(own_dir, exist_ok=True)
        own_name = "tb-opt.%s.mlir" % vname
        with open(os.path.join(own_dir, own_name), "w",
                  encoding="utf-8", errors="surrogateescape") as f:
            f.write(own.out)
        rt = self.tool("mlir-opt", check_flags, own_name, own_dir)
        if rt.rc != 0 or rt.crash_reason():
            return None
        cache[key] = rt.out
        return rt.out

    def round_trip(self, chunk, workdir, ours, ours_name, vname, vflags,
                   check_flags, expected, what, cache):
        got = self.tool("mlir-opt", check_flags, ours_name, workdir)
        if not self.check_clean(chunk, got, "mlir-opt on tb-opt [%s] output" % vname):
            return
        self.checks += 1
        if got.out == expected:
            return
        own = self.own_round_trip(chunk, workdir, vname, vflags, check_flags, cache)
        if own is not None and own != expected and got.out == own:
            # mlir-opt printing with these flags is lossy, and tb-opt loses
            # exactly the same information: that is a match.
            if ("noted", vname) not in cache:
                cache[("noted", vname)] = True
                print("note: %s chunk %d: mlir-opt's own round trip through variant "
                      "%s differs from the reference (lossy flags); tb-opt matches it"
                      % (self.label, chunk[0], vname))
            return
        msg = "%s: chunk %d, variant %s (%s)" % (what, chunk[0], vname, " ".join(vflags))
        if own is not None and own != expected:
            msg += ("\n  (note: mlir-opt's own output with these flags does not round-trip "
                    "either; diff against that:)\n" + _indent(udiff(own, got.out, "mlir-opt(mlir-opt-variant(input))",
                                                                    "mlir-opt(tb-opt(input))")))
        self.fail(chunk, "%s\n%s%s" % (msg, udiff(expected, got.out, "mlir-opt(input)",
                                                   "mlir-opt(tb-opt(input))"), _hint(ours)))

    def valid_chunk(self, chunk, workdir):
        name = self.label
        ref = self.tool("mlir-opt", REF_FLAGS, name, workdir)
        if not self.check_clean(chunk, ref, "mlir-opt (reference) on the input"):
            return
        plain = self.tool("mlir-opt", PLAIN_FLAGS, name, workdir)
        if not self.check_clean(chunk, plain, "mlir-opt (reference, no debuginfo) on the input"):
            return
        cache = {}
        for vname, vflags, has_loc in VARIANTS:
            ours = self.tool("tb-opt", vflags, name, workdir)
            if not self.check_clean(chunk, ours, "tb-opt [%s] on the input" % vname):
                continue
            ours_name = "tb-opt.%s.mlir" % vname
            with open(os.path.join(workdir, ours_name), "w",
                      encoding="utf-8", errors="surrogateescape") as f:
                f.write(ours.out)
            if has_loc:
                self.round_trip(chunk, workdir, ours, ours_name, vname, vflags, REF_FLAGS,
                                ref.out, "round trip with debuginfo differs", cache)
            self.round_trip(chunk, workdir, ours, ours_name, vname, vflags, PLAIN_FLAGS,
                            plain.out, "round trip without debuginfo differs", cache)
            again = self.tool("tb-opt", vflags, ours_name, workdir)
            if self.check_clean(chunk, again, "tb-opt [%s] on its own output" % vname):
                self.compare(chunk, ours.out, again.out,
                             "tb-opt(input)", "tb-opt(tb-opt(input))",
                             "tb-opt is not idempotent: chunk %d, variant %s (%s)"
                             % (chunk[0], vname, " ".join(vflags)))

    # -- invalid mode -------------------------------------------------------
    def invalid_chunk(self, chunk, workdir):
        name = self.label
        results = {}
        for which in ("mlir-opt", "tb-opt"):
            res = self.tool(which, BASE_FLAGS, name, workdir)
            self.checks += 1
            why = res.crash_reason()
            if why:
                self.fail(chunk, "%s %s (%s)\n  command: %s\n%s"
                          % (which, _verb(res), why, res.describe(), _indent(res.err)))
                return
            if res.rc == 0:
                self.fail(chunk, "%s ACCEPTED an invalid input\n  command: %s\n%s"
                          % (which, res.describe(), _indent(res.out)))
                return
            results[which] = res
        self.checks += 1
        ref_line, ref_msg = first_error(results["mlir-opt"])
        our_line, our_msg = first_error(results["tb-opt"])
        if our_msg is None or ref_line != our_line:
            self.fail(chunk, "error reported on a different line "
                      "(mlir-opt: %s, tb-opt: %s)\n  mlir-opt: %s\n  tb-opt:   %s"
                      % (ref_line, our_line, ref_msg,
                         our_msg if our_msg is not None
                         else "<no error: diagnostic>\n" + _indent(results["tb-opt"].err)))

    def run(self):
        try:
            with open(self.args.file, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError as e:
            print("error: cannot read %s: %s" % (self.args.file, e))
            return 1
        for i, line in enumerate(text.splitlines(), 1):
            if "// -----" in line and not SPLIT_RE.match(line):
                print("warning: %s:%d: '// -----' in the middle of a line; mlir-opt "
                      "--split-input-file would split here, mlir-diff does not"
                      % (self.label, i))
        chunks = split_chunks(text)
        if self.args.chunk:
            chunks = [c for c in chunks if c[0] in self.args.chunk]
        root = tempfile.mkdtemp(prefix="mlir-diff.")
        try:
            for chunk in chunks:
                n, start, body = chunk
                workdir = os.path.join(root, "chunk%d" % n)
                os.mkdir(workdir)
                with open(os.path.join(workdir, self.label), "w",
                          encoding="utf-8", errors="surrogateescape") as f:
                    f.write(body)
                if self.args.invalid:
                    self.invalid_chunk(chunk, workdir)
                else:
                    self.valid_chunk(chunk, workdir)
        finally:
            if self.args.keep_temps:
                print("note: temporaries kept in %s" % root)
            else:
                shutil.rmtree(root, ignore_errors=True)
        mode = "invalid" if self.args.invalid else "valid"
        status = "PASS" if self.failures == 0 else "FAIL"
        print("mlir-diff %s: %s (%s): %d chunk(s), %d check(s), %d failure(s)"
              % (status, self.label, mode, len(chunks), self.checks, self.failures))
        return 0 if self.failures == 0 else 1


def _resolve(path):
    if os.sep in path or (os.altsep and os.altsep in path):
        return os.path.abspath(path)
    return shutil.which(path) or path


def _indent(s, prefix="    | "):
    s = s.rstrip("\n")
    if not s:
        return prefix + "<empty>"
    return "\n".join(prefix + line for line in s.split("\n"))


def _verb(res):
    if res.missing:
        return "COULD NOT BE RUN"
    if res.timed_out:
        return "TIMED OUT"
    return "CRASHED"


def _hint(ours, limit=60):
    lines = ours.out.rstrip("\n").split("\n")
    more = ""
    if len(lines) > limit:
        more = "\n    | ... (%d more lines)" % (len(lines) - limit)
        lines = lines[:limit]
    return "\n  (tb-opt printed:)\n" + _indent("\n".join(lines)) + more


def main(argv=None):
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped to head
    # Turn SIGTERM into an exception so the temporary directory is removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(
        description="Differential round-trip check of tb-opt against mlir-opt.")
    ap.add_argument("--tb-opt", required=True, help="path of the tb-opt binary")
    ap.add_argument("--mlir-opt", required=True, help="path of the reference mlir-opt")
    ap.add_argument("--invalid", action="store_true",
                    help="every chunk must be rejected by both tools, "
                         "with the first error on the same line")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="per-subprocess timeout in seconds (default 60)")
    ap.add_argument("--chunk", type=int, action="append",
                    help="only check chunk N (1-based; may be repeated)")
    ap.add_argument("--keep-temps", action="store_true",
                    help="keep the temporary directory for inspection")
    ap.add_argument("file", help="the .mlir file to check")
    args = ap.parse_args(argv)
    return Checker(args).run()


if __name__ == "__main__":
    sys.exit(main())
