/* The meshing process's confinement, entered before it reads anything of the
 * input (app/mesher.c), all of it enforced by the kernel:
 *  - Landlock (when the kernel has it): the process may read the mesh file
 *    and the files under one folder (the case file's), and nothing else; it
 *    may create, write, remove or execute no file anywhere; no TCP, no
 *    signals or abstract sockets beyond itself;
 *  - seccomp (libseccomp): no execve, no new processes (threads only), no
 *    open for writing, no file creation, removal or renaming, no sockets,
 *    no ptrace, mount, namespaces, BPF, io_uring or kernel keyrings;
 *  - resource limits: no file may grow (RLIMIT_FSIZE 0), no core dumps, at
 *    most `memory` bytes of address space; it dies with its parent, and is
 *    the first process the kernel's out-of-memory killer takes.
 * Gmsh's own commands that would need any of these then fail inside Gmsh. */
#ifndef FE_SANDBOX_H
#define FE_SANDBOX_H

#include <stddef.h>

struct fe_sandbox {
  const char *file;     /* readable */
  const char *read_dir; /* readable, with everything under it; NULL: none */
  size_t memory;        /* address-space limit in bytes, 0: none */
  int keep_fd;          /* the one descriptor kept open besides 0, 1, 2 */
  /* set by fe_sandbox_enter: what was in force */
  int landlock_abi; /* 0: the kernel has no Landlock */
};

/* Enter the sandbox; FE_ERR_RESOURCE when a part that must work fails
 * (seccomp, the limits).  Irreversible for this process. */
int fe_sandbox_enter(struct fe_sandbox *s);

/* MemAvailable of /proc/meminfo in bytes (and MemTotal in *total), 0 when unknown. */
size_t fe_memory_available(size_t *total);

#endif
