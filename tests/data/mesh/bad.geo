// Bad input: a syntax error (missing comma) on line 3.
Point(1) = {0, 0, 0, 0.1};
Point(2) = {1, 0, 0 0.1};
