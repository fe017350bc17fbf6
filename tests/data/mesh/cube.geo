// Unit cube [0,1]^3: faces xmin (1), xmax (2), ymin (3), ymax (4), zmin (5),
// zmax (6), volume body (10).  The point size 0.3 gives a few hundred tetrahedra.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
MeshSize{PointsOf{Volume{1};}} = 0.3;
Physical Surface("xmin", 1) = {1};
Physical Surface("xmax", 2) = {2};
Physical Surface("ymin", 3) = {3};
Physical Surface("ymax", 4) = {4};
Physical Surface("zmin", 5) = {5};
Physical Surface("zmax", 6) = {6};
Physical Volume("body", 10) = {1};
