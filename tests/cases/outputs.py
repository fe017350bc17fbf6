#!/usr/bin/env python3
"""The output directory of a fesim run (docs/case-format.md, "Outputs"), through fesim itself.

    outputs.py FESIM CASE CHECK WORK

CASE is a small valid case (tests/bad_input/restart.xml, named "bad"), rewritten into WORK
with other time spans.  CHECK is one of
  lock        a second run into the directory of a running one exits 2, naming the holder
              (its pid and case) and writing nothing; the running one goes on, and its stat
              file holds one row per step
  killed      a run killed with SIGKILL leaves its lock file, which the kernel released: the
              next run into the directory runs, and removes the temporaries named by fesim's
              pattern (BASE.fesim-tmp.PID), and only those
  file-limit  under `ulimit -f` a run exits 4 with one message naming the stat file; the stat
              file ends with a complete row, and no temporary or lock file is left
  failed-restart
              CASE fails (exit 3) and keeps its last good state in a checkpoint; a restart
              from it that fails again at the same step names that checkpoint and leaves the
              file as it was (same inode, same bytes, same modification time)
Exit 0 when it holds, 1 with a message otherwise.  Only the Python standard library is used.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET


def make_case(case, work, tag, end, name=None):
    """CASE with <time end>, no dumps after the first, its mesh by absolute path: WORK/TAG.xml."""
    tree = ET.parse(case)
    root = tree.getroot()
    mesh = root.find("mesh")
    mesh.set("file", os.path.join(os.path.dirname(os.path.abspath(case)), mesh.get("file")))
    root.find("time").set("end", repr(end))
    root.find("output").set("every", "1000000000")
    for c in root.findall("checkpoint"):
        root.remove(c)
    if name:
        root.find("name").text = name
    path = os.path.join(work, tag + ".xml")
    tree.write(path, xml_declaration=True, encoding="UTF-8")
    return path


def wait_rows(stat, rows, proc, limit=60):
    deadline = time.time() + limit
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(stat) and len(open(stat).read().splitlines()) > rows:
            return True
        time.sleep(0.01)
    return False


def one_error(err, pattern):
    lines = err.splitlines()
    ok = len(lines) == 1 and re.fullmatch(pattern, lines[0]) is not None
    if not ok:
        print(f"stderr:\n{err}\nexpected one line matching:\n{pattern}")
    return ok


def rows_consecutive(stat):
    text = open(stat).read()
    lines = text.splitlines()
    header = lines[0].split(",")
    steps = [int(line.split(",")[0]) for line in lines[1:]]
    whole = text.endswith("\n") and all(len(line.split(",")) == len(header) for line in lines[1:])
    ok = whole and steps == list(range(len(steps)))
    if not ok:
        print(f"{stat}: not one complete row per step:\n{text[-2000:]}")
    return ok


def check_lock(fesim, case, work):
    long_case = make_case(case, work, "long", 1e5)
    other = make_case(case, work, "other", 1, name="other")
    out = os.path.join(work, "out")
    first = subprocess.Popen([fesim, "--quiet", "--output", out, long_case], stderr=subprocess.PIPE, text=True)
    stat = os.path.join(out, "bad.stat")
    ok = wait_rows(stat, 3, first)
    lock = os.path.join(out, "fesim.lock")
    holder = (rf"fesim: error: output directory '{re.escape(out)}' is in use by another fesim run "
              rf"\(pid {first.pid}, case '{re.escape(os.path.realpath(long_case))}'; lock "
              rf"'{re.escape(lock)}'\): two runs would mix their outputs; wait for it to end, or use "
              r"--output for another directory")
    for second in (long_case, other):  # the same case, and another one
        before = sorted(os.listdir(out))
        proc = subprocess.run([fesim, "--quiet", "--output", out, second], capture_output=True, text=True)
        print(f"second run ({os.path.basename(second)}): exit {proc.returncode}; {proc.stderr.strip()}")
        ok = ok and proc.returncode == 2 and one_error(proc.stderr, holder)
        ok = ok and not any(f.startswith("other") for f in os.listdir(out)) and before == sorted(os.listdir(out))
    first.send_signal(signal.SIGTERM)
    err = first.communicate()[1]
    print(f"first run: exit {first.returncode}; {err.strip()}")
    ok = ok and first.returncode == 143 and rows_consecutive(stat) and not os.path.exists(lock)
    return ok


def check_killed(fesim, case, work):
    long_case = make_case(case, work, "long", 1e5)
    short_case = make_case(case, work, "short", 1)
    out = os.path.join(work, "out")
    first = subprocess.Popen([fesim, "--quiet", "--output", out, long_case])
    ok = wait_rows(os.path.join(out, "bad.stat"), 3, first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    lock = os.path.join(out, "fesim.lock")
    ok = ok and os.path.exists(lock)
    stale = ["bad_000007.vtk.fesim-tmp.999999", "bad_checkpoint_000100.bin.fesim-tmp.12"]
    kept = ["notes.fesim-tmp.txt", "my notes.fesim-tmp.5", "keep.txt", "bad.stat.fesim-tmp.x1"]
    for f in stale + kept:
        open(os.path.join(out, f), "w").write("left behind\n")
    proc = subprocess.run([fesim, "--force", "--output", out, short_case], capture_output=True, text=True)
    print(f"next run: exit {proc.returncode}; {proc.stderr.strip()}")
    left = set(os.listdir(out))
    note = f"fesim: note: removed 2 temporary files of an interrupted run from {out}"
    ok = ok and proc.returncode == 0 and note in proc.stderr.splitlines()
    ok = ok and not (set(stale) & left) and set(kept) <= left and not os.path.exists(lock)
    print(f"left in {out}: {sorted(left)}")
    return ok


def check_file_limit(fesim, case, work):
    path = make_case(case, work, "limited", 20)
    out = os.path.join(work, "out")
    # 8 blocks of 1024 bytes (bash): the first dump (7.3 kB) fits, the stat file outgrows it
    proc = subprocess.run(["bash", "-c", 'ulimit -f 8 && exec "$0" "$@"', fesim, "--quiet", "--output", out,
                           path], capture_output=True, text=True)
    print(f"exit {proc.returncode}; {proc.stderr.strip()}")
    stat = os.path.join(out, "bad.stat")
    pattern = (rf"fesim: error: cannot write '{re.escape(stat)}': File too large \(the row of step [0-9]+ not "
               r"written; the file ends with the row before\)")
    ok = proc.returncode == 4 and one_error(proc.stderr, pattern) and rows_consecutive(stat)
    last = int(open(stat).read().splitlines()[-1].split(",")[0])
    step = int(re.search(r"row of step ([0-9]+)", proc.stderr).group(1)) if ok else -1
    left = os.listdir(out)
    print(f"stat file: rows 0 to {last}, {os.path.getsize(stat)} bytes; files left: {sorted(left)}")
    return ok and step == last + 1 and not [f for f in left if ".fesim-tmp." in f or f == "fesim.lock"]


def check_failed_restart(fesim, case, work):
    out = os.path.join(work, "out")
    first = subprocess.run([fesim, "--quiet", "--backend", "cpu", "--output", out, case], capture_output=True, text=True)
    found = re.search(r"the last good state \(step ([0-9]+), t = [^)]*\) is in ([^;]*);", first.stderr)
    print(f"run: exit {first.returncode}; {first.stderr.strip()}")
    if first.returncode != 3 or not found:
        return False
    ckpt = found.group(2)
    before = os.stat(ckpt)
    data = open(ckpt, "rb").read()
    time.sleep(0.05)
    again = subprocess.run([fesim, "--quiet", "--backend", "cpu", "--output", out, "--restart", ckpt, case],
                           capture_output=True, text=True)
    print(f"restart: exit {again.returncode}; {again.stderr.strip()}")
    after = os.stat(ckpt)
    same = (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns) and open(ckpt, "rb").read() == data
    named = f"the last good state (step {found.group(1)}, " in again.stderr and f"is in {ckpt};" in again.stderr
    print(f"{ckpt}: untouched {same}")
    return again.returncode == 3 and same and named


def main():
    fesim, case, check, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    checks = {"lock": check_lock, "killed": check_killed, "file-limit": check_file_limit,
              "failed-restart": check_failed_restart}
    ok = checks[check](fesim, case, work)
    print("PASS" if ok else "FAIL")
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
