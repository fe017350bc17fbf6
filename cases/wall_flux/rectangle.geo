// The rectangle [0, 2] x [0, 1]: a hot wall at x = 0, a cold wall at x = 2.
Point(1) = {0, 0, 0};
Point(2) = {2, 0, 0};
Point(3) = {2, 1, 0};
Point(4) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("bottom") = {1};
Physical Curve("cold") = {2};
Physical Curve("top") = {3};
Physical Curve("hot") = {4};
Physical Surface("slab") = {1};
