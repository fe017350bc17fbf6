/* A .geo file is a program: Gmsh's language can run shell commands, write,
 * read and delete files, read the environment and end the process.  Before
 * Gmsh sees a script, fesim reads it as Gmsh's lexer would (comments,
 * strings, names) and refuses, naming the line, every command that reaches
 * outside the geometry: SystemCall, System, NonBlockingSystemCall, OnelabRun,
 * OnelabAction, Plugin; Save, Print, Printf > file, CreateDir, DeleteFile,
 * RenameFile; Include, Merge, MergeWithBoundingBox, ShapeFromFile,
 * ListFromFile, FileExists, GetEnv, CurrentDir(ectory), AbsolutePath,
 * GmshExecutableName; Exit, Abort, Sleep; meshing commands (Mesh N,
 * RefineMesh, OptimizeMesh, AdaptMesh, SetOrder, PartitionMesh,
 * RelocateMesh: fesim meshes the geometry itself); options of the Solver,
 * Print, PostProcessing, View and Fltk categories, and string-valued options
 * (which name files and programs).  The sandbox of the meshing process
 * (io/sandbox.h) enforces the same in the kernel; this check gives the
 * clear message. */
#ifndef FE_GEO_CHECK_H
#define FE_GEO_CHECK_H

#define FE_GEO_MAX_BYTES (16L << 20)

/* FE_ERR_INPUT "SHOWN:LINE: 'SystemCall' runs a shell command: ..." for the
 * first refused command; also a script larger than FE_GEO_MAX_BYTES, a NUL
 * byte, an unterminated comment or string.  `shown` names the file in
 * messages (fe_path_shown). */
int fe_geo_check(const char *path, const char *shown);

/* The same for a script in memory (len bytes), named `path` in messages. */
int fe_geo_check_text(const char *path, const char *text, long len);

#endif
