/* Cell measures on the host (set-up: lumped mass vector, CFL estimate); the
 * norms of fields are computed on the backend (fe_space_mass_apply). */
#ifndef FE_MEASURE_H
#define FE_MEASURE_H

#include "io/mesh.h"

/* The measure (length, area or volume) of cell c: |det J| / d! */
double fe_cell_measure(const struct fe_mesh *m, long c);

#endif
