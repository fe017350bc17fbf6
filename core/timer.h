/* Wall-clock time for phase timings and the stat file. */
#ifndef FE_TIMER_H
#define FE_TIMER_H


#ifdef __cplusplus
extern "C" {
#endif

double fe_wtime(void); /* seconds since an arbitrary origin, monotonic */

#ifdef __cplusplus
}
#endif

#endif
