// Bad mesh: the unit square meshed with quadrangles.
Include "square.geo";
Recombine Surface{1};
