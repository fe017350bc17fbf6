/* Wall-clock time for phase timings and the stat file. */
#ifndef FE_TIMER_H
#define FE_TIMER_H

double fe_wtime(void); /* seconds since an arbitrary origin, monotonic */

#endif
