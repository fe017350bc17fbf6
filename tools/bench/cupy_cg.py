#!/usr/bin/env python3
"""Peer of fesim's CG benchmark: CuPy's CG and SpMV on fesim's own matrix.

    cupy_cg.py FILE [--iterations 50] [--repeats R] [--cg-runs 3] [--copy-gbs X]
    cupy_cg.py --check FILE

FILE is written by fesim-export-matrix (the addto CSR of M + 0.01 K with its
Dirichlet rows and columns, and b = A 1; format in export_matrix.c and
tools/bench/README.md).  The matrix goes into cupyx.scipy.sparse.csr_matrix as
it is, and cupyx.scipy.sparse.linalg.cg runs a fixed number of iterations with
a Jacobi preconditioner (a LinearOperator multiplying by 1 / diag(A)), as
fesim-bench-operators runs fesim's CG on the same matrix.  Prints, with the
columns of fesim-bench-operators, one row per measurement:
    cupy,memcpy,copy         device-to-device copy of 1 GiB (read + write)
    cupy,csr,apply           one A @ x (cuSPARSE through CuPy)
    cupy,csr,cg_iteration    a CG iteration (the fastest of --cg-runs solves)
bytes are the compulsory bytes of fesim's model (README.md): apply
nnz*12 + n*20; a Jacobi CG iteration apply + 13 vectors of n doubles.  With
--copy-gbs (fesim's measured copy bandwidth) the fractions are of that figure,
otherwise of the copy measured here.

--check verifies FILE with numpy alone (no GPU): A 1 = b, A symmetric, rows of
the identity where b is 1 and the row has one non-zero entry.

Exit status 77 (skipped) when numpy, CuPy or a GPU is missing.
"""
import argparse
import inspect
import sys
import time

SKIP = 77
HEADER = "dim,cells,nodes,backend,strategy,phase,seconds,bytes,GB_per_s,fraction_of_copy,iterations"


def skip(why):
    print(f"cupy_cg.py: skipped: {why}", file=sys.stderr)
    sys.exit(SKIP)


try:
    import numpy as np
except ImportError as e:
    np = None
    NUMPY_ERROR = str(e)


def load(path):
    """The matrix file: dict with dim, cells, n, nnz, rowptr, colind, values, b (numpy arrays)."""
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic != b"FESIMCSR":
            sys.exit(f"cupy_cg.py: {path}: not a fesim matrix file (magic {magic!r}, expected b'FESIMCSR')")
        version, n, nnz, dim, cells = (int(v) for v in np.fromfile(f, dtype="<i8", count=5))
        if version != 1:
            sys.exit(f"cupy_cg.py: {path}: format version {version}, this script reads version 1")
        m = {"dim": dim, "cells": cells, "n": n, "nnz": nnz}
        for name, dtype, count in (("rowptr", "<i4", n + 1), ("colind", "<i4", nnz),
                                   ("values", "<f8", nnz), ("b", "<f8", n)):
            m[name] = np.fromfile(f, dtype=dtype, count=count)
            if m[name].size != count:
                sys.exit(f"cupy_cg.py: {path}: truncated in {name} ({m[name].size} of {count} values)")
        if f.read(1):
            sys.exit(f"cupy_cg.py: {path}: trailing bytes after b")
    if m["rowptr"][0] != 0 or m["rowptr"][-1] != nnz or np.any(np.diff(m["rowptr"]) < 0):
        sys.exit(f"cupy_cg.py: {path}: row pointers are not a CSR's")
    return m


def check(m):
    """numpy only: A 1 = b, symmetry, identity Dirichlet rows. Returns the number of failures."""
    n, rowptr, col, val = m["n"], m["rowptr"], m["colind"], m["values"]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(rowptr))
    a1 = np.bincount(rows, weights=val, minlength=n)
    res = np.max(np.abs(a1 - m["b"])) / np.max(np.abs(m["b"]))
    t = np.lexsort((rows, col))  # entries of A^T in row-major order
    same_pattern = np.array_equal(col[t], rows) and np.array_equal(rows[t], col)
    asym = np.max(np.abs(val[t] - val)) / np.max(np.abs(val)) if same_pattern else np.inf
    diag = np.zeros(n)
    on_diag = rows == col
    diag[rows[on_diag]] = val[on_diag]
    offdiag = np.bincount(rows, weights=np.abs(val) * ~on_diag, minlength=n)
    identity_rows = int(np.sum((diag == 1.0) & (offdiag == 0.0)))
    print(f"cupy_cg.py: {m['dim']}D, {m['cells']} cells, n {n}, nnz {m['nnz']}: "
          f"max |A 1 - b| / max |b| = {res:.2e}, max |A - A^T| / max |A| = {asym:.2e}, "
          f"{identity_rows} identity rows, min diagonal {diag.min():.3e}")
    failures = 0
    for ok, what in ((res <= 1e-12, "A 1 differs from b"), (same_pattern, "the sparsity is not symmetric"),
                     (asym <= 1e-12, "A is not symmetric"), (identity_rows > 0, "no identity (Dirichlet) rows"),
                     (diag.min() > 0, "a diagonal entry is not positive")):
        if not ok:
            print(f"cupy_cg.py: FAIL: {what}", file=sys.stderr)
            failures += 1
    return failures


def row(m, strategy, phase, seconds, nbytes, copy_gbs, iterations=0):
    gbs = nbytes / seconds / 1e9
    print(f"{m['dim']},{m['cells']},{m['n']},cupy,{strategy},{phase},{seconds:.6e},{nbytes:.6e},"
          f"{gbs:.2f},{gbs / copy_gbs:.3f},{iterations}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("--iterations", type=int, default=50, help="CG iterations per solve (default 50)")
    p.add_argument("--repeats", type=int, default=0, help="SpMV repeats (default: by size)")
    p.add_argument("--cg-runs", type=int, default=3, help="timed CG solves; the fastest is reported")
    p.add_argument("--copy-gbs", type=float, default=0, help="copy bandwidth for the fractions (GB/s)")
    p.add_argument("--check", action="store_true", help="verify FILE with numpy only, then exit")
    a = p.parse_args()
    if np is None:
        skip(f"numpy is not importable ({NUMPY_ERROR})")
    if a.check:
        sys.exit(1 if check(load(a.file)) else 0)
    try:
        import cupy as cp
        import cupyx.scipy.sparse as sp
        import cupyx.scipy.sparse.linalg as spla
    except Exception as e:  # ImportError, or a CUDA library that fails to load
        skip(f"cupy is not importable ({type(e).__name__}: {e})")
    try:
        ndev = cp.cuda.runtime.getDeviceCount()
    except Exception as e:
        skip(f"no usable GPU ({type(e).__name__}: {e})")
    if ndev < 1:
        skip("no GPU")
    m = load(a.file)
    dev = cp.cuda.Device()
    name = cp.cuda.runtime.getDeviceProperties(dev.id)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    print(f"# cupy {cp.__version__}, numpy {np.__version__}, device {name}")

    # device copy bandwidth, as fesim-bench-operators measures it (1 GiB read + 1 GiB written)
    nb = 1 << 30
    src, dst = cp.empty(nb // 8), cp.empty(nb // 8)
    dst.data.copy_from_device(src.data, nb)
    dev.synchronize()
    reps = 10
    t0 = time.perf_counter()
    for _ in range(reps):
        dst.data.copy_from_device(src.data, nb)
    dev.synchronize()
    t_copy = (time.perf_counter() - t0) / reps
    del src, dst
    copy_gbs = a.copy_gbs or 2 * nb / t_copy / 1e9
    print(f"# copy bandwidth {2 * nb / t_copy / 1e9:.1f} GB/s (cupy memcpy)"
          + (f"; fractions of {a.copy_gbs:.1f} GB/s (given)" if a.copy_gbs else ""))
    print(HEADER)
    row(m, "memcpy", "copy", t_copy, 2.0 * nb, copy_gbs)

    n, nnz = m["n"], m["nnz"]
    A = sp.csr_matrix((cp.asarray(m["values"]), cp.asarray(m["colind"]), cp.asarray(m["rowptr"])), shape=(n, n))
    b = cp.asarray(m["b"])
    apply_bytes = nnz * 12.0 + n * 4.0 + n * 16.0
    x = cp.ones(n)
    y = A @ x
    dev.synchronize()
    err = float(cp.max(cp.abs(y - b)) / cp.max(cp.abs(b)))
    if err > 1e-12:
        sys.exit(f"cupy_cg.py: CuPy's A @ 1 differs from fesim's b by {err:.3e} (relative)")
    reps = a.repeats or max(10, min(500, int(2e8 / max(nnz, 1))))
    t0 = time.perf_counter()
    for _ in range(reps):
        y = A @ x
    dev.synchronize()
    row(m, "csr", "apply", (time.perf_counter() - t0) / reps, apply_bytes, copy_gbs)

    dinv = 1.0 / A.diagonal()
    M = spla.LinearOperator((n, n), matvec=lambda v: dinv * v, dtype=cp.float64)
    params = inspect.signature(spla.cg).parameters
    tol = {"rtol": 1e-30} if "rtol" in params else {"tol": 1e-30}  # CuPy >= 14 renamed tol

    def solve():
        count = [0]

        def callback(_xk):
            count[0] += 1

        spla.cg(A, b, x0=cp.zeros(n), maxiter=a.iterations, M=M, callback=callback, atol=0.0, **tol)
        return count[0]

    solve()  # warm-up: kernels compiled and cached
    dev.synchronize()
    best, iterations = float("inf"), 0
    for _ in range(max(1, a.cg_runs)):
        t0 = time.perf_counter()
        it = solve()
        dev.synchronize()
        t = (time.perf_counter() - t0) / max(it, 1)
        if t < best:
            best, iterations = t, it
    row(m, "csr", "cg_iteration", best, apply_bytes + 13 * 8.0 * n, copy_gbs, iterations)


if __name__ == "__main__":
    main()
