/* Reference tensors of the P1 forms, by exact integration on the reference
 * simplex (computed once on the host; Knepley & Terrel section 3). */
#ifndef FE_REFERENCE_H
#define FE_REFERENCE_H

#include "assembly/element.h"

/* Exact integral over the reference d-simplex of prod_i lambda_i^a_i
 * (barycentric coordinates): prod a_i! / (d + sum a_i)!. */
double fe_reference_monomial(int d, const int a[4]);

void fe_reference_init(int d, struct fe_reference *ref);

#endif
