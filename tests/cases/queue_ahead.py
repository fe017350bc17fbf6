#!/usr/bin/env python3
"""A step's end after the next step was queued (app/run.c, time_loop), on the GPU.

    queue_ahead.py FESIM CASE WORK

CASE (the default case) runs to t = 0.3 with --backend cuda --deterministic twice: as fesim
runs it, where the summary must say that steps ended after the next one was queued, and with
FESIM_QUEUE_AHEAD=0, where none did.  The two runs' stat files (all columns but wall_seconds),
probes files and dumps must be the same bytes.  Exit 77 (skip) without a usable GPU, 0 when
it holds, 1 with a message otherwise.  Only the Python standard library is used.
"""
import filecmp
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77


def make_case(case, work):
    """CASE ending at t = 0.3, its mesh and probes file by absolute path: WORK/case.xml."""
    tree = ET.parse(case)
    root = tree.getroot()
    here = os.path.dirname(os.path.abspath(case))
    mesh = root.find("mesh")
    mesh.set("file", os.path.join(here, mesh.get("file")))
    probes = root.find("probes")
    if probes is not None and probes.get("file"):
        probes.set("file", os.path.join(here, probes.get("file")))
    root.find("time").set("end", "0.3")
    path = os.path.join(work, "case.xml")
    tree.write(path, xml_declaration=True, encoding="UTF-8")
    return path


def run(fesim, case, out, ahead):
    env = dict(os.environ)
    if not ahead:
        env["FESIM_QUEUE_AHEAD"] = "0"
    proc = subprocess.run([fesim, "--backend", "cuda", "--deterministic", "--force", "--output",
                           out, case], capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode == 4 and re.search(r"no[ \n]+usable[ \n]+GPU|without[ \n]+the[ \n]+CUDA",
                                          proc.stderr):
        print("skipped: no usable GPU")
        sys.exit(SKIP)
    if proc.returncode != 0:
        sys.exit(f"fesim exited {proc.returncode}:\n{proc.stderr}")
    m = re.search(r"(\d+) of (\d+) steps ended after the next was queued", proc.stdout)
    if not m:
        sys.exit(f"no count of the steps queued ahead in the summary:\n{proc.stdout}")
    return int(m.group(1)), int(m.group(2))


def main():
    fesim, case, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    path = make_case(case, work)
    a, b = os.path.join(work, "ahead"), os.path.join(work, "in_turn")
    ahead, steps = run(fesim, path, a, True)
    none, _ = run(fesim, path, b, False)
    if not 0 < ahead < steps or none != 0:
        sys.exit(f"steps ended after the next was queued: {ahead} of {steps} (expected some, "
                 f"not all), with FESIM_QUEUE_AHEAD=0 {none} (expected 0)")
    files = sorted(os.listdir(a))
    for name in files:
        x, y = os.path.join(a, name), os.path.join(b, name)
        if name.endswith(".stat"):
            rows = [[line.rsplit(",", 1)[0] for line in open(p).read().splitlines()] for p in (x, y)]
            same = rows[0] == rows[1]
        elif name.endswith((".csv", ".vtk", ".series")):
            same = filecmp.cmp(x, y, shallow=False)
        else:
            continue
        if not same:
            sys.exit(f"{name} differs between the run queueing ahead and the one that does not")
    print(f"{ahead} of {steps} steps ended after the next was queued; {len(files)} files alike")


if __name__ == "__main__":
    main()
