// The rectangle [0.1, 0.6] x [-0.3, 0.1] of Fluidity's steady MMS tests
// (longtests/mms_tracer_cg_advdiff_steady/src/MMS_A.geo), its sides as separate groups
// named after where they lie; their Gmsh numbers 7 to 10 as in Fluidity's file.
Point(1) = {0.1, -0.3, 0};
Point(2) = {0.6, -0.3, 0};
Point(3) = {0.6, 0.1, 0};
Point(4) = {0.1, 0.1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(5) = {2, 3, 4, 1};
Plane Surface(6) = {5};
Physical Curve("bottom", 7) = {1};
Physical Curve("right", 8) = {2};
Physical Curve("top", 9) = {3};
Physical Curve("left", 10) = {4};
Physical Surface("domain", 11) = {6};
