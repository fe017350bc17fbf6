/* A series index: the files of a time series and the time of each, as
 * ParaView opens them.  Two kinds, by extension:
 *   .series  ParaView's JSON file series (fesim writes NAME.vtk.series):
 *            {"file-series-version": "1.0", "files": [{"name": F, "time": T}, ...]}
 *   .pvd     VTK's XML collection (ParaView, Firedrake):
 *            <VTKFile type="Collection"><Collection><DataSet timestep="T" file="F"/>...
 * File names are relative to the index's folder (or absolute). */
#ifndef FE_SERIES_H
#define FE_SERIES_H

struct fe_series_entry {
  char *file; /* resolved against the index's folder */
  double time;
};

/* The entries in the index's order (at least one).  FE_ERR_INPUT naming the index and where
 * in it for a file that is not such an index, an entry without a name or a finite time. */
int fe_series_read(const char *path, struct fe_series_entry **entries, int *n);
void fe_series_free(struct fe_series_entry *entries, int n);

#endif
