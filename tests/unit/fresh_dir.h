/* A directory a test makes for its own files, and its removal. */
#ifndef FE_FRESH_DIR_H
#define FE_FRESH_DIR_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Removes the directory a test made for itself (its files only: it has no subdirectories). */
static inline void remove_fresh(const char *dir)
{
  DIR *d = opendir(dir);
  char path[512];
  for (struct dirent *ent; d && (ent = readdir(d));) {
    if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

#endif
