/* io/geo_check: Gmsh's lexer as the check reads it (names, numbers, strings,
 * comments) and what is refused, with its line; what a geometry script
 * needs passes. */
#include "io/geo_check.h"

#include "core/error.h"
#include "test.h"

#include <string.h>

static int check(const char *text)
{
  fe_error_set_quiet(1);
  const int err = fe_geo_check_text("t.geo", text, (long)strlen(text));
  fe_error_set_quiet(0);
  return err;
}

static void passes(const char *text)
{
  if (check(text) != FE_SUCCESS) fprintf(stderr, "refused, expected to pass:\n%s\n", text);
  CHECK(check(text) == FE_SUCCESS);
}

static void refused(const char *text)
{
  if (check(text) != FE_ERR_INPUT) fprintf(stderr, "passed, expected a refusal:\n%s\n", text);
  CHECK(check(text) == FE_ERR_INPUT);
}

int main(void)
{
  /* what meshing scripts use */
  passes("lc = 0.1; Point(1) = {0, 0, 0, lc}; Point(2) = {1, .5e-3, 1.e2, 2E+1};\n"
         "Line(1) = {1, 2}; Physical Curve(\"wall\", 3) = {1};\n");
  passes("SetFactory(\"OpenCASCADE\"); Rectangle(1) = {0, 0, 0, 1, 1};\n"
         "General.NumThreads = 16; Mesh.Algorithm = 6; Mesh.MeshSizeMax = 0.1;\n"
         "Geometry.Tolerance = 1e-8; Mesh.MaxNumThreads1D = 4;\n");
  passes("DefineConstant[ lc = {0.1, Name \"Parameters/lc\"} ];\n");
  passes("For i In {1:3}\n  Printf(\"i = %g\", i);\nEndFor\nIf (lc > 0.05)\n  x = 1;\nEndIf\n");
  passes("Macro m\n  y = 2;\nReturn\nCall m;\n");
  passes("Transfinite Curve {1} = 10; Recombine Surface {1}; Field[1] = Distance;\n");
  /* the names only inside strings and comments, or as part of longer names */
  passes("// SystemCall \"rm -rf /\"; Include \"x\";\n/* Save \"y\"; Exit; */\n");
  passes("Physical Surface(\"Include Merge Save\") = {1}; title = 'Exit';\n");
  passes("SaveAs = 1; mySystem = 2; Included = 3; Merger = 4; ExitCode = 5; Meshes = 6;\n");
  passes("x = 1 > 0;\n"); /* a comparison, not a redirection */

  /* what is refused, each with its reason */
  refused("SystemCall \"touch x\";");
  refused("System \"touch x\";");
  refused("NonBlockingSystemCall \"x\";");
  refused("OnelabRun(\"x\", \"y\");");
  refused("Plugin(Crack).Run;");
  refused("Save \"x.msh\";");
  refused("Print \"x.png\";");
  refused("Printf(\"%g\", 1) > \"x\";");
  refused("Printf(\"%g\", (1 + 2)) >> \"x\";");
  refused("CreateDir \"d\";");
  refused("Include \"x.geo\";");
  refused("Merge \"x.msh\";");
  refused("MergeWithBoundingBox \"x.msh\";");
  refused("v() = ShapeFromFile(\"x.step\");");
  refused("l() = ListFromFile(\"x\");");
  refused("e = FileExists(\"/etc/passwd\");");
  refused("h = GetEnv(\"HOME\");");
  refused("d = CurrentDirectory;");
  refused("Exit;");
  refused("Abort;");
  refused("Sleep 100;");
  refused("Mesh 2;");
  refused("RefineMesh;");
  refused("Solver.Executable0 = \"/bin/sh\";");
  refused("Print.Width = 100;");
  refused("View[0].Name = \"x\";");
  refused("General.OptionsFileName = \"x\";");
  refused("Mesh.Format = StrCat(\"a\", \"b\");");
  refused("lc = 0.1;\n/* never ends");
  refused("s = \"never ends;");
  static const char nul[] = "a = 1;\nb = 2;\nx\0y = 3;";
  fe_error_set_quiet(1);
  CHECK(fe_geo_check_text("t.geo", nul, (long)sizeof nul - 1) == FE_ERR_INPUT);
  fe_error_set_quiet(0);
  TEST_DONE();
}
