// Unit cube, transfinite square extruded in N layers: 6 N^3 tetrahedra (N = 56: 1.05M).
N = 56;
Point(1) = {0, 0, 0}; Point(2) = {1, 0, 0}; Point(3) = {1, 1, 0}; Point(4) = {0, 1, 0};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 2, 3, 4} = N + 1;
Transfinite Surface{1};
out[] = Extrude{0, 0, 1}{ Surface{1}; Layers{N}; };
Physical Surface("walls") = {1, out[0], out[2], out[3], out[4], out[5]};
Physical Volume("cube") = {out[1]};
