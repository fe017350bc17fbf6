#!/usr/bin/env python3
"""The 2D benchmark case (tools/bench/cases/advection_2d.xml) with several tracers, for runs
that need more memory than one tracer's: each tracer has its own diffusivity, so none shares
its diffusion operators (the mass and advection operators are shared).

    python3 tools/bench/many_tracers.py TRACERS N CASE.xml [STEPS]

writes CASE.xml and, beside it, its mesh CASE.geo: Gmsh's transfinite unit square of 2 N^2
triangles (tools/bench/cases/square_1m.geo with N), STEPS steps of dt = 0.001 (default 3).
8 tracers on N = 5000 (50M triangles) need about 107 GB on the GPU: more than one H100 holds
(docs/performance.md, "A case one GPU cannot hold")."""
import os
import re
import sys


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    tracers, n, out = int(argv[1]), int(argv[2]), argv[3]
    steps = int(argv[4]) if len(argv) == 5 else 3
    if tracers < 1 or n < 1 or steps < 1 or not out.endswith(".xml"):
        sys.exit("expected TRACERS >= 1, N >= 1, CASE ending in .xml and STEPS >= 1\n" + __doc__)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
    geo = open(os.path.join(here, "square_1m.geo")).read()
    geo = re.sub(r"^N = [0-9]+;", "N = %d;" % n, geo, flags=re.M)
    geo_path = out[:-4] + ".geo"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    open(geo_path, "w").write(geo)
    case = open(os.path.join(here, "advection_2d.xml")).read()
    case = case.replace("square_1m.geo", os.path.basename(geo_path))
    case = re.sub(r'end="[^"]*"', 'end="%g"' % (0.001 * steps), case)
    one = re.search(r'  <tracer name="T">.*?</tracer>\n', case, flags=re.S).group(0)
    many = "".join(
        one.replace('name="T"', 'name="T%d"' % k).replace("<diffusivity>k</diffusivity>",
                                                           "<diffusivity>%d*k</diffusivity>" % (k + 1))
        for k in range(tracers))
    open(out, "w").write(case.replace(one, many))


if __name__ == "__main__":
    main(sys.argv)
