// A plate with twelve holes (OpenCASCADE), meshed with the 16 threads the
// script asks for: Gmsh 4.8's threaded curve meshing corrupted its heap on
// such scripts 1 time in 3 to 10; fesim meshes curves on one thread.
SetFactory("OpenCASCADE");
General.NumThreads = 16;
Rectangle(1) = {0, 0, 0, 4, 2};
For i In {0:11}
  Disk(10 + i) = {0.3 + 0.3 * i, 1, 0, 0.1};
EndFor
BooleanDifference(100) = { Surface{1}; Delete; }{ Surface{10:21}; Delete; };
Physical Curve("outer", 1) = {1:4};
Physical Surface("plate", 2) = {100};
