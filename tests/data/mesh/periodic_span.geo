// The unit square, periodic in x and in y, with one segment per side: two
// triangles, each with three copies of one node, spanning the periodic domain
// (tests/bad_input.cmake: refused).
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
Transfinite Curve{1, 2, 3, 4} = 2;
Periodic Curve{2} = {-4} Translate{1, 0, 0};
Periodic Curve{3} = {-1} Translate{0, 1, 0};
