// The channel [0, 1] x [0, 1], periodic in x (the right side a copy of the
// left): its walls y = 0 and y = 1 end at corners that are copies of each
// other, on both sides of the period.
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
Physical Curve("bottom") = {1};
Physical Curve("top") = {3};
Physical Surface("channel") = {1};
