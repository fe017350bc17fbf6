// Bad mesh: tetrahedra of a cube plus a physical surface that is no face of them.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Rectangle(10) = {2, 0, 0, 1, 1};
MeshSize{PointsOf{Volume{1}; Surface{10};}} = 0.5;
Physical Surface("stray", 1) = {10};
Physical Volume("body", 10) = {1};
