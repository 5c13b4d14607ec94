#!/usr/bin/env python3
"""mbi.py - run the MPI Bugs Initiative (MBI) codes with our smpicc/smpirun
or SimGrid's and tabulate what each tool reports.

Normally started by scripts/mbi.sh, which fetches SimGrid 3.32's source
package (it carries MBI's generators), generates the codes and passes
--codes and --mbi-src; see its usage comment for the options and the
environment. Python 3 standard library only. MBI's own files are read at run
time from the source package (the scope and display-name tables of
MBIutils.py, parsed, not imported); nothing of MBI is kept here.

Each code's header (between BEGIN_MBI_TESTS and END_MBI_TESTS) lists test
lines, `$ mpirun -np N ${EXE}` followed by `| OK` or `| ERROR: <Detail>`.
A code is compiled once (`smpicc -g -O0 -w -trace-call-location code.c -o
bin`), then each of its
test lines is run with a timeout; the run's combined stdout and stderr is
kept in OUT/logs/<code>_<id>.txt (the compiler's in OUT/logs/<code>.build.txt,
the run's exit status, time and the code's md5 in OUT/logs/<code>_<id>.json).

Outcomes, the first that applies:
  timeout     the run outlived --timeout (its process group is killed)
  build-fail  smpicc failed (report: the first undefined symbol, else the
              first error line)
  crash       killed by a signal (negative status, or 128+signal from a
              shell; SimGrid's smpirun aborts (SIGABRT) on purpose after an
              MPI error or a deadlock report, which is then not a crash), or
              a crash text: "panicked at", "Segmentation fault", "SIGSEGV",
              "core dumped", "free(): ", "double free", "malloc(): ",
              "CRASH IN THE PROGRAM", "Access violation or Bus error",
              our "smpirun: rank R crashed", "overflowed its stack",
              "smpirun: internal error". Not a crash: the abort() an MBI
              code calls itself after printing "MBI_MSG_RACE: ..." (it saw
              a message race; MBI's harness counts that line as a detection)
  deadlock    ours: a line starting "smpirun: deadlock"; SimGrid: a line
              with "deadlock" in any case ("Deadlock detected", "DEADLOCK
              DETECTED")
  mpierr      ours: "smpirun: rank R: MPI_Xxx: ... [MPI_ERR_...]" (an
              MPI_Abort of the program's own is an error-exit); SimGrid:
              "returned MPI_ERR" or "MPI_ERR_"
  finding     ours: a line starting "smpirun: check: <Kind>:" (a
              correctness warning); both: "Probable memory leaks in your
              code", "Collective communication mismatch", a line with
              "leaked" (smpi/list-leaks reports)
  error-exit  a non-zero exit status without any of the above
  ok          exit status 0 and none of the above
"""

import argparse
import ast
import concurrent.futures
import csv
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

CLUSTER_XML = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
 <cluster id="acme" prefix="node-" radical="0-99" suffix="" speed="1Gf" bw="125MBps" lat="50us"/>
</platform>
"""

OUTCOMES = ["timeout", "build-fail", "crash", "deadlock", "mpierr", "finding", "error-exit", "ok"]
REPORTED = {"deadlock", "mpierr", "finding", "error-exit"}
FAILURES = {"crash", "timeout", "build-fail"}

CRASH_TEXT = re.compile(
    r"panicked at|Segmentation fault|SIGSEGV|core dumped|free\(\): |double free|malloc\(\): "
    r"|CRASH IN THE PROGRAM|Access violation or Bus error"
    r"|^smpirun: rank \d+ crashed|overflowed its stack|^smpirun: internal error",
    re.M)
DEADLOCK = {
    "ours": re.compile(r"^smpirun: deadlock.*$", re.M),
    "simgrid": re.compile(r"^.*deadlock.*$", re.M | re.I),
}
MPIERR = {
    "ours": re.compile(r"^smpirun: rank \d+: MPI_\w+: .*\[MPI_ERR_\w+\].*$", re.M),
    "simgrid": re.compile(r"^.*(?:returned MPI_ERR|MPI_ERR_).*$", re.M),
}
CHECK = re.compile(r"^smpirun: check: ([^:]+):.*$", re.M)
FINDING_TEXT = re.compile(
    r"^.*(?:Probable memory leaks in your code|Collective communication mismatch|leaked).*$", re.M)
# A report that names a rank and an MPI call (MPI_Send, MPI_Comm_dup; not
# MPI_ERR_TYPE or MPI_COMM_WORLD).
RANK_AND_CALL = re.compile(r"^(?=.*\brank \d+)(?=.*\bMPI_[A-Z][a-z]\w*).*$", re.M)


def die(msg):
    print(f"mbi: error: {msg}", file=sys.stderr)
    sys.exit(2)


def note(msg):
    print(f"mbi: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# MBI's tables, read from MBIutils.py without running it.
# ---------------------------------------------------------------------------
def mbi_tables(mbi_src):
    path = os.path.join(mbi_src, "MBIutils.py")
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except OSError as e:
        die(f"cannot read {path}: {e}")
    tables = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("possible_details", "displayed_name"):
            tables[node.targets[0].id] = ast.literal_eval(node.value)
    for name in ("possible_details", "displayed_name"):
        if name not in tables:
            die(f"no {name} table in {path}")
    return tables["possible_details"], tables["displayed_name"]


def parse_header(path, details):
    """The test lines of a code: [(id, cmd, expect, detail)]."""
    tests = []
    state = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "BEGIN_MBI_TESTS" in line:
            state = 1
        elif "END_MBI_TESTS" in line:
            break
        elif state == 1:
            m = re.match(r"\s+\$ ?(.*)", line)
            if m:
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                if re.match(r"[ |]*OK *", nxt):
                    expect, detail = "OK", "OK"
                else:
                    e = re.match(r"[ |]*ERROR: *(\S*)", nxt)
                    if not e:
                        raise ValueError(f"{path}:{i + 1}: test line not followed by OK or ERROR")
                    expect, detail = "ERROR", e.group(1)
                    if detail not in details:
                        raise ValueError(f"{path}:{i + 2}: unknown detail '{detail}'")
                tests.append((len(tests), m.group(1).strip(), expect, detail))
                i += 1
        i += 1
    if not tests:
        raise ValueError(f"{path}: no MBI test header")
    return tests


def md5_of(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


# ---------------------------------------------------------------------------
# Running.
# ---------------------------------------------------------------------------
class Tool:
    def __init__(self, name):
        self.name = name
        if name == "ours":
            here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            self.cc = os.environ.get("SMPICC") or os.path.join(here, "target/release/smpicc")
            self.run = os.environ.get("SMPIRUN") or os.path.join(here, "target/release/smpirun")
            # Every correctness check, unless SMPIRUN_ARGS says otherwise.
            extra = os.environ.get("SMPIRUN_ARGS", "--cfg=smpi/check:all").split()
            self.run_args = ["-platform", "cluster.xml", "--cfg=smpi/simulate-computation:no"] \
                + extra
        else:
            self.cc = "/usr/bin/smpicc"
            self.run = "/usr/bin/smpirun"
            self.run_args = ["-platform", "cluster.xml", "--cfg=smpi/list-leaks:10"]
        for p in (self.cc, self.run):
            if not (os.path.isfile(p) and os.access(p, os.X_OK)):
                die(f"{p} not found or not executable" +
                    (" (set SMPICC/SMPIRUN, or build ours with 'cargo build --release')"
                     if name == "ours" else " (install Debian's simgrid package)"))
        self.cc = os.path.abspath(self.cc)
        self.run = os.path.abspath(self.run)

    def fingerprint(self):
        """What else a cached result depends on: the tools' files and arguments."""
        stamp = [str(os.stat(p).st_mtime_ns) for p in (self.cc, self.run)]
        return hashlib.md5(" ".join(stamp + self.run_args).encode()).hexdigest()[:8]

    def command(self, cmd, binary):
        """The argv of an MBI test line, e.g. `mpirun -np 2 ${EXE}`."""
        argv = []
        for tok in shlex.split(cmd):
            if tok in ("$zero_buffer", "$infty_buffer"):
                continue  # model-checker options: we have no model checker
            if tok == "mpirun":
                argv.append(self.run)
            elif tok == "${EXE}":
                argv += self.run_args + [binary]
            else:
                argv.append(tok)
        return argv


def run_group(argv, cwd, log_path, timeout):
    """Runs argv in its own process group, output to log_path. Returns
    (status, elapsed, timed_out)."""
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            status = None
        # Kill the whole group in every case (a shell launcher's leftovers).
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if status is None:
            status = proc.wait()
    return status, time.monotonic() - start, timed_out


def do_code(tool, path, tests, out, timeout, force, digest):
    """Compiles a code and runs its tests unless their logs are current."""
    code = os.path.basename(path)[:-2]
    logs = os.path.join(out, "logs")
    todo = []
    for tid, cmd, _, _ in tests:
        meta_path = os.path.join(logs, f"{code}_{tid}.json")
        if not force and os.path.exists(os.path.join(logs, f"{code}_{tid}.txt")):
            try:
                with open(meta_path) as f:
                    meta = json.load(f)
                if meta.get("md5") == digest and meta.get("tool") == tool.name:
                    continue
            except (OSError, ValueError):
                pass
        todo.append((tid, cmd))
    if not todo:
        return 0
    binary = os.path.join(out, "bin", code)
    build_log = os.path.join(logs, f"{code}.build.txt")
    # -trace-call-location: reports then name the source line (SimGrid's
    # MBI wrapper builds so too).
    build_argv = [tool.cc, "-g", "-O0", "-w", "-trace-call-location", path, "-o", binary]
    if os.path.exists(binary):
        os.remove(binary)
    build_status, _, build_to = run_group(build_argv, out, build_log, 300)
    built = build_status == 0 and not build_to and os.path.exists(binary)
    for tid, cmd in todo:
        log_path = os.path.join(logs, f"{code}_{tid}.txt")
        argv = tool.command(cmd, binary)
        if built:
            status, elapsed, timed_out = run_group(argv, out, log_path, timeout)
        else:
            with open(log_path, "w") as f:
                f.write("(not run: the build failed)\n")
            status, elapsed, timed_out = None, 0.0, False
        meta = {"tool": tool.name, "md5": digest, "build_status": build_status if not build_to else "timeout",
                "build_cmd": build_argv, "cmd": argv, "status": status, "elapsed": round(elapsed, 3),
                "timed_out": timed_out}
        with open(os.path.join(logs, f"{code}_{tid}.json"), "w") as f:
            json.dump(meta, f)
    return len(todo)


# ---------------------------------------------------------------------------
# Classifying.
# ---------------------------------------------------------------------------
def one_line(s, limit=300):
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


def classify(tool, out, code, tid):
    """(outcome, report line, elapsed, names rank and call, check kinds)."""
    logs = os.path.join(out, "logs")
    with open(os.path.join(logs, f"{code}_{tid}.json")) as f:
        meta = json.load(f)
    with open(os.path.join(logs, f"{code}_{tid}.txt"), "rb") as f:
        text = f.read().decode("utf-8", errors="replace")
    elapsed = meta.get("elapsed", 0.0)
    kinds = CHECK.findall(text)
    named = bool(RANK_AND_CALL.search(text))
    if meta.get("timed_out"):
        return "timeout", f"timeout after {elapsed:.0f} s", elapsed, named, kinds
    if meta.get("build_status") != 0:
        try:
            with open(os.path.join(logs, f"{code}.build.txt"), "rb") as f:
                btext = f.read().decode("utf-8", errors="replace")
        except OSError:
            btext = ""
        m = re.search(r"undefined reference to [`']([^'`]+)'", btext)
        if m:
            return "build-fail", f"undefined symbol {m.group(1)}", elapsed, False, []
        m = re.search(r"^.*\berror\b.*$", btext, re.M)
        return "build-fail", one_line(m.group(0) if m else f"smpicc exit {meta.get('build_status')}"), \
            elapsed, False, []
    status = meta.get("status")
    deadlock = DEADLOCK[tool].search(text)
    mpierr = MPIERR[tool].search(text)
    crash_text = CRASH_TEXT.search(text)
    sig = -status if status < 0 else (status - 128 if 128 < status < 128 + 65 else 0)
    lines = [l for l in text.split("\n") if l.strip()]
    # An MBI code that sees a message race prints "MBI_MSG_RACE: ..." and
    # calls abort() itself (MBI's harness counts that line as a detection):
    # that abort is the program's, not a crash of the tool.
    race = re.search(r"^MBI_MSG_RACE.*$", text, re.M)
    program_abort = sig == signal.SIGABRT and race
    for m in CRASH_TEXT.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0]
        if program_abort and "SIGABRT" in line:
            continue
        return "crash", one_line(line), elapsed, named, kinds
    if sig and not program_abort \
            and not (sig == signal.SIGABRT and tool == "simgrid" and (mpierr or deadlock)):
        try:
            sname = signal.Signals(sig).name
        except ValueError:
            sname = f"signal {sig}"
        why = [l for l in lines if re.search(r"CRITICAL|[Aa]ssert|xbt_die|terminate called|error", l)]
        if not why:  # the last line that is not the launcher's own closing words
            why = [l for l in lines if not l.startswith("Execution failed")
                   and not (l.startswith("/") and "--cfg=" in l) and l.strip() != "Aborted"][-1:]
        return "crash", one_line(f"killed by {sname}: {why[0] if why else ''}"), elapsed, named, kinds
    if deadlock:
        return "deadlock", one_line(deadlock.group(0)), elapsed, named, kinds
    if mpierr:
        return "mpierr", one_line(mpierr.group(0)), elapsed, named, kinds
    check = CHECK.search(text)
    if check:
        return "finding", one_line(check.group(0)), elapsed, named, kinds
    finding = FINDING_TEXT.search(text)
    if finding:
        return "finding", one_line(finding.group(0)), elapsed, named, kinds
    if status != 0:
        last = [race.group(0)] if race else lines[-2:]
        return "error-exit", one_line(f"exit {status}: " + " | ".join(last)), elapsed, named, kinds
    return "ok", "", elapsed, named, kinds


def verdict(expect, outcome):
    if outcome in FAILURES:
        return outcome
    if expect == "OK":
        return "TN" if outcome == "ok" else "FP"
    return "FN" if outcome == "ok" else "TP"


# ---------------------------------------------------------------------------
# Reporting.
# ---------------------------------------------------------------------------
COLS = ["TP", "FN", "FP", "TN", "crash", "timeout", "build-fail"]


def pct(num, den):
    return f"{100.0 * num / den:5.1f}%" if den else "    -"


def print_table(title, rows, key_order, label):
    """rows: list of dicts with 'verdict' and the key; one line per key."""
    width = max([len(label)] + [len(k) for k in key_order] + [5])
    print(f"\n{title}")
    head = f"{label:<{width}} {'tests':>5} " + " ".join(f"{c:>{max(len(c), 4)}}" for c in COLS) \
        + f" {'recall':>6} {'precision':>9}"
    print(head)
    print("-" * len(head))
    total = {c: 0 for c in COLS}
    n_total = 0
    for k in key_order:
        sel = [r for r in rows if r["key"] == k]
        if not sel:
            continue
        cnt = {c: sum(1 for r in sel if r["verdict"] == c) for c in COLS}
        err_fail = sum(1 for r in sel if r["expect"] == "ERROR" and r["verdict"] in FAILURES)
        recall = pct(cnt["TP"], cnt["TP"] + cnt["FN"] + err_fail)
        precision = pct(cnt["TP"], cnt["TP"] + cnt["FP"])
        print(f"{k:<{width}} {len(sel):>5} " + " ".join(f"{cnt[c]:>{max(len(c), 4)}}" for c in COLS)
              + f" {recall:>6} {precision:>9}")
        for c in COLS:
            total[c] += cnt[c]
        n_total += len(sel)
    err_fail = sum(1 for r in rows if r["expect"] == "ERROR" and r["verdict"] in FAILURES)
    print("-" * len(head))
    print(f"{'total':<{width}} {n_total:>5} " + " ".join(f"{total[c]:>{max(len(c), 4)}}" for c in COLS)
          + f" {pct(total['TP'], total['TP'] + total['FN'] + err_fail):>6}"
          + f" {pct(total['TP'], total['TP'] + total['FP']):>9}")


def compare(csv_path, other_path):
    def load(p):
        with open(p, newline="") as f:
            return {(r["code"], r["test_id"]): r for r in csv.DictReader(f)}
    try:
        a, b = load(csv_path), load(other_path)
    except OSError as e:
        die(f"--compare: {e}")
    diffs = 0
    print(f"\nOutcomes that differ: {csv_path} vs {other_path}")
    for k in sorted(set(a) | set(b)):
        ra, rb = a.get(k), b.get(k)
        oa = ra["outcome"] if ra else "(absent)"
        ob = rb["outcome"] if rb else "(absent)"
        if oa != ob:
            diffs += 1
            print(f"  {k[0]} #{k[1]}: {oa} vs {ob}")
            if ra and ra["report"]:
                print(f"      this:  {ra['report']}")
            if rb and rb["report"]:
                print(f"      other: {rb['report']}")
    print(f"  {diffs} of {len(set(a) | set(b))} rows differ")


def main():
    scratch = os.environ.get("MBI_SCRATCH", "/tmp/simgrid-src")
    ap = argparse.ArgumentParser(description="Run the MBI codes with our SMPI or SimGrid's "
                                 "(normally through scripts/mbi.sh).")
    ap.add_argument("--tool", choices=["ours", "simgrid"], default="ours")
    ap.add_argument("-j", type=int, default=2, dest="jobs", help="parallel runs (default 2)")
    ap.add_argument("--timeout", type=float, default=30, help="seconds per run (default 30)")
    ap.add_argument("--filter", help="run only the codes whose file name matches this regex")
    ap.add_argument("--out", help="binaries and logs (default $MBI_SCRATCH/mbi-<tool>)")
    ap.add_argument("--csv", help="results (default OUT/results.csv)")
    ap.add_argument("--force", action="store_true", help="rerun even the tests whose log is current")
    ap.add_argument("--compare", metavar="OTHER.csv", help="print the rows whose outcome differs")
    ap.add_argument("--codes", default=os.path.join(scratch, "mbi-codes"),
                    help="the generated codes (default $MBI_SCRATCH/mbi-codes)")
    ap.add_argument("--mbi-src", help="SimGrid's teshsuite/smpi/MBI (for MBIutils.py's tables)")
    args = ap.parse_args()

    if args.jobs < 1:
        die("-j must be at least 1")
    mbi_src = args.mbi_src
    if not mbi_src:
        cands = sorted(d for d in (os.path.join(scratch, e, "teshsuite/smpi/MBI")
                                   for e in (os.listdir(scratch) if os.path.isdir(scratch) else []))
                       if os.path.isfile(os.path.join(d, "MBIutils.py")))
        if not cands:
            die(f"no simgrid-*/teshsuite/smpi/MBI under {scratch} (run scripts/mbi.sh)")
        mbi_src = cands[-1]
    details, displayed = mbi_tables(mbi_src)
    tool = Tool(args.tool)
    out = os.path.abspath(args.out or os.path.join(scratch, f"mbi-{args.tool}"))
    csv_path = os.path.abspath(args.csv or os.path.join(out, "results.csv"))
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    os.makedirs(os.path.join(out, "bin"), exist_ok=True)
    with open(os.path.join(out, "cluster.xml"), "w") as f:
        f.write(CLUSTER_XML)

    if not os.path.isdir(args.codes):
        die(f"no codes directory {args.codes} (run scripts/mbi.sh)")
    files = sorted(f for f in os.listdir(args.codes) if f.endswith(".c"))
    if args.filter:
        files = [f for f in files if re.search(args.filter, f)]
    if not files:
        die("no code to run")
    codes = []
    for f in files:
        path = os.path.join(args.codes, f)
        try:
            codes.append((path, parse_header(path, details), md5_of(path) + tool.fingerprint()))
        except ValueError as e:
            die(str(e))
    n_tests = sum(len(t) for _, t, _ in codes)
    note(f"{args.tool}: {len(codes)} codes, {n_tests} tests, -j {args.jobs}, "
         f"timeout {args.timeout:g} s; logs in {out}/logs")
    note(f"smpicc: {tool.cc}; smpirun: {tool.run} {' '.join(tool.run_args)}")

    done = [0, 0]
    lock = threading.Lock()
    t0 = time.monotonic()

    def task(c):
        path, tests, digest = c
        ran = do_code(tool, path, tests, out, args.timeout, args.force, digest)
        with lock:
            done[0] += len(tests)
            done[1] += ran
            if done[0] % 100 < len(tests) or done[0] == n_tests:
                note(f"{done[0]}/{n_tests} tests ({done[1]} run, the others' logs reused), "
                     f"{time.monotonic() - t0:.0f} s")

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for fut in [pool.submit(task, c) for c in codes]:
            fut.result()

    # Classify every test from its files, write the CSV, tabulate.
    rows = []
    for path, tests, _ in codes:
        code = os.path.basename(path)[:-2]
        for tid, cmd, expect, detail in tests:
            outcome, report, elapsed, named, kinds = classify(args.tool, out, code, tid)
            np_m = re.search(r"-np\s+(\d+)", cmd)
            rows.append({"code": code, "test_id": tid, "np": np_m.group(1) if np_m else "",
                         "expect": expect, "detail": detail, "scope": details[detail],
                         "outcome": outcome, "elapsed_s": f"{elapsed:.3f}", "report": report,
                         "verdict": verdict(expect, outcome), "named": named, "kinds": kinds})
    rows.sort(key=lambda r: (r["code"], r["test_id"]))
    os.makedirs(os.path.dirname(csv_path), exist_ok=True)
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        fields = ["code", "test_id", "np", "expect", "detail", "scope", "outcome", "elapsed_s", "report"]
        w.writerow(fields)
        for r in rows:
            w.writerow([r[k] for k in fields])

    scopes = sorted(set(details.values()))
    for r in rows:
        r["key"] = displayed.get(r["scope"], r["scope"])
    print(f"MBI with {args.tool} ({tool.run}); {len(rows)} tests; results in {csv_path}")
    print_table("Per scope", rows, [displayed.get(s, s) for s in scopes], "scope")
    for r in rows:
        r["key"] = r["detail"]
    detail_order = sorted(details, key=lambda d: (details[d], d))
    print_table("Per detail", rows, detail_order, "detail")

    ok_rows = [r for r in rows if r["expect"] == "OK"]
    err_rows = [r for r in rows if r["expect"] == "ERROR"]
    tn = sum(1 for r in ok_rows if r["verdict"] == "TN")
    tp_rows = [r for r in err_rows if r["verdict"] == "TP"]
    crashes = [r for r in rows if r["outcome"] == "crash"]
    timeouts = [r for r in rows if r["outcome"] == "timeout"]
    bfails = [r for r in rows if r["outcome"] == "build-fail"]
    print()
    print(f"correct codes clean {tn} of {len(ok_rows)}; erroneous codes reported {len(tp_rows)} of "
          f"{len(err_rows)} ({pct(len(tp_rows), len(err_rows)).strip()}); crashes {len(crashes)} "
          f"({sum(1 for r in crashes if r['expect'] == 'ERROR')} on erroneous codes); "
          f"timeouts {len(timeouts)}; build failures {len(bfails)}")
    by_outcome = {o: sum(1 for r in tp_rows if r["outcome"] == o) for o in OUTCOMES if o in REPORTED}
    print("true positives by outcome: " + ", ".join(f"{o} {n}" for o, n in by_outcome.items())
          + f"; naming a rank and an MPI call: {sum(1 for r in tp_rows if r['named'])} of {len(tp_rows)}")
    kinds = {}
    for r in rows:
        for k in set(r["kinds"]):
            kinds.setdefault(k, [0, 0])[0 if r["expect"] == "ERROR" else 1] += 1
    if kinds:
        print("check kinds (tests with at least one such line, erroneous/correct codes): "
              + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(kinds.items())))
    for title, sel in (("crashes", crashes), ("timeouts", timeouts), ("build failures", bfails),
                       ("false positives", [r for r in rows if r["verdict"] == "FP"])):
        if sel:
            print(f"\n{title}:")
            for r in sel:
                print(f"  {r['code']} #{r['test_id']} [{r['expect']}]: {r['report']}")

    if args.compare:
        compare(csv_path, args.compare)


if __name__ == "__main__":
    main()
