// The unit square [0,1]^2, periodic in x and in y: the right side is a copy of
// the left (shifted by 1 in x), the top a copy of the bottom (shifted by 1 in
// y).  Gmsh meshes each slave curve as the translate of its master, so the
// nodes match pair by pair; fesim makes each pair one unknown.
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1, 1, 0};
Point(4) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Periodic Curve{2} = {-4} Translate{1, 0, 0};
Periodic Curve{3} = {-1} Translate{0, 1, 0};
Physical Surface("domain") = {1};
