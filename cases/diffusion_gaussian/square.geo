// The square [-1,1]^2 with one boundary group.
L = 1;
Point(1) = {-L, -L, 0};
Point(2) = {L, -L, 0};
Point(3) = {L, L, 0};
Point(4) = {-L, L, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("outer") = {1, 2, 3, 4};
Physical Surface("domain") = {1};
