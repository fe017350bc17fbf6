/* libFuzzer target: the readers of velocity snapshot files (io/point_data.h) on
 * arbitrary bytes, the format chosen by how the bytes start, as the seeds are
 * real files: "# vtk" legacy VTK, "$MeshFormat" Gmsh $NodeData, else VTK XML.
 * Each field name the seeds use is asked for in turn. */
#include "core/error.h"
#include "io/point_data.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  fe_error_set_quiet(1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  unsigned char *b = malloc(size + 1); /* the readers' input ends with a NUL, as io/file.h reads */
  if (!b) return 0;
  memcpy(b, data, size);
  b[size] = 0;
  static const char *const fields[] = {"velocity", "u vel"};
  for (int f = 0; f < 2; f++) {
    struct fe_point_data pd;
    int err;
    if (size >= 5 && !memcmp(b, "# vtk", 5))
      err = fe_vtk_read_points("fuzz.vtk", b, size, fields[f], &pd);
    else if (size >= 11 && !memcmp(b, "$MeshFormat", 11))
      err = fe_msh_read_node_data("fuzz.msh", b, size, fields[f], &pd);
    else
      err = fe_vtu_read_points("fuzz.vtu", b, size, fields[f], &pd);
    if (err == FE_SUCCESS) {
      volatile double sink = 0;
      for (size_t i = 0; i < pd.n * (size_t)pd.components; i++) sink += pd.values[i];
      for (size_t i = 0; pd.points && i < 3 * pd.n; i++) sink += pd.points[i];
      (void)sink;
      fe_point_data_free(&pd);
    }
  }
  free(b);
  return 0;
}
