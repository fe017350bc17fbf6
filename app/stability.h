/* The stable Courant number of the explicit advection step, from a von Neumann analysis of
 * the 1D P1 scheme on a uniform grid (docs/numerics.md, "SUPG"). */
#ifndef FE_STABILITY_H
#define FE_STABILITY_H

/* The largest u dt / h at which classical RK4 on M_s dT/dt = -K_s T is stable for every Fourier
 * mode, minimised over SUPG's scaled xi in [0, xi_max] (xi_max 0: Galerkin; SUPG's tau is
 * xi_max h / (2 |u|) at most, xi_max = 2 nu_scale).  M_s is the consistent or lumped mass plus
 * tau C^T, K_s the advection plus the streamline diffusion: with the symbols of mode theta,
 *   g = (i sin theta + xi (1 - cos theta)) / (m - i xi sin theta / 2),
 *   m = (2 + cos theta) / 3 (consistent) or 1 (lumped),
 * the limit is the largest c with |R(-c g)| <= 1, R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24.
 * Galerkin: 1.633 (sqrt 8 / sqrt 3) consistent, 2.828 lumped. */
double fe_rk4_stable_courant(int lumped, double xi_max);

#endif
