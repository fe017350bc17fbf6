// Unit cube [0,1]^3 meshed with tetrahedra; the six faces are one group.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Surface("walls") = {1, 2, 3, 4, 5, 6};
Physical Volume("cube") = {1};
