// never ends: the time limit stops it inside its loop (lines 4 to 8)
lc = 0.1;
x = 0;
For i In {1:1000000}
  For j In {1:1000000}
    x = x + 1;
  EndFor
EndFor
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("left", 1) = {4};
Physical Curve("right", 2) = {2};
Physical Curve("bottom", 3) = {1};
Physical Curve("top", 4) = {3};
Physical Surface("domain", 10) = {1};
