#define _GNU_SOURCE /* close_range, CLONE_THREAD */
#include "io/sandbox.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- Landlock (linux/landlock.h may predate the kernel: the ABI is spelt out) */

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

struct ruleset_attr {
  uint64_t handled_access_fs, handled_access_net, scoped;
};

struct path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

enum {
  LL_CREATE_RULESET_VERSION = 1,
  LL_RULE_PATH_BENEATH = 1,
  LL_READ_FILE = 1 << 2,
  LL_READ_DIR = 1 << 3,
};

/* Every file-system right the kernel's ABI knows is handled, so denied
 * unless a rule grants it (ABI 1: execute ... make_sym; 2: refer;
 * 3: truncate; 5: ioctl on devices). */
static uint64_t fs_rights(int abi)
{
  uint64_t r = (1ull << 13) - 1;
  if (abi >= 2) r |= 1ull << 13;
  if (abi >= 3) r |= 1ull << 14;
  if (abi >= 5) r |= 1ull << 15;
  return r;
}

static int allow_read(int ruleset, const char *path, uint64_t access)
{
  const int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return -1;
  struct path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
  const long rc = syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0);
  close(fd);
  return rc ? -1 : 0;
}

static int enter_landlock(struct fe_sandbox *s)
{
  const long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (abi < 1) return FE_SUCCESS; /* not in this kernel: seccomp and the limits still hold */
  struct ruleset_attr attr = {.handled_access_fs = fs_rights((int)abi)};
  if (abi >= 4) attr.handled_access_net = 1 | 2; /* bind and connect TCP */
  if (abi >= 6) attr.scoped = 1 | 2;             /* abstract unix sockets, signals */
  const int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  FE_CHECK(rs >= 0, FE_ERR_RESOURCE, "sandbox: cannot create a Landlock ruleset: %s",
           strerror(errno));
  int ok = allow_read(rs, s->file, LL_READ_FILE) == 0;
  if (ok && s->read_dir) ok = allow_read(rs, s->read_dir, LL_READ_FILE | LL_READ_DIR) == 0;
  const int e = errno;
  ok = ok && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
       syscall(SYS_landlock_restrict_self, rs, 0) == 0;
  close(rs);
  FE_CHECK(ok, FE_ERR_RESOURCE, "sandbox: cannot confine the meshing process with Landlock: %s",
           strerror(errno ? errno : e));
  s->landlock_abi = (int)abi;
  return FE_SUCCESS;
}

/* ---- seccomp ---------------------------------------------------------------- */

static const int refused[] = {
    /* programs and processes */
    SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(ptrace),
    SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(kill), SCMP_SYS(tkill),
    SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd),
    /* files: creating, writing by name, removing, renaming, linking, modes */
    SCMP_SYS(creat), SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(mknod), SCMP_SYS(mknodat),
    SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rmdir), SCMP_SYS(rename), SCMP_SYS(renameat),
    SCMP_SYS(renameat2), SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(symlink), SCMP_SYS(symlinkat),
    SCMP_SYS(truncate), SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(chmod), SCMP_SYS(fchmod),
    SCMP_SYS(fchmodat), SCMP_SYS(chown), SCMP_SYS(fchown), SCMP_SYS(lchown), SCMP_SYS(fchownat),
    SCMP_SYS(utime), SCMP_SYS(utimes), SCMP_SYS(utimensat), SCMP_SYS(futimesat), SCMP_SYS(setxattr),
    SCMP_SYS(lsetxattr), SCMP_SYS(fsetxattr), SCMP_SYS(removexattr), SCMP_SYS(lremovexattr),
    SCMP_SYS(fremovexattr), SCMP_SYS(name_to_handle_at), SCMP_SYS(open_by_handle_at),
    SCMP_SYS(memfd_create),
    /* network */
    SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen),
    SCMP_SYS(accept), SCMP_SYS(accept4),
    /* the system */
    SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot), SCMP_SYS(unshare),
    SCMP_SYS(setns), SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd),
    SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
    SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(init_module),
    SCMP_SYS(finit_module), SCMP_SYS(delete_module), SCMP_SYS(kexec_load),
    SCMP_SYS(kexec_file_load), SCMP_SYS(reboot), SCMP_SYS(swapon), SCMP_SYS(swapoff),
    SCMP_SYS(acct), SCMP_SYS(settimeofday), SCMP_SYS(clock_settime), SCMP_SYS(sethostname),
    SCMP_SYS(setdomainname), SCMP_SYS(personality), SCMP_SYS(quotactl), SCMP_SYS(fanotify_init),
    SCMP_SYS(inotify_init), SCMP_SYS(inotify_init1)};

static int enter_seccomp(void)
{
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  FE_CHECK(ctx, FE_ERR_RESOURCE, "sandbox: seccomp is not available");
  int rc = 0;
  for (size_t i = 0; i < sizeof refused / sizeof *refused && !rc; i++)
    if (refused[i] >= 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), refused[i], 0);
  /* threads, never processes; clone3's flags are out of a filter's reach:
   * without it glibc falls back to clone */
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  /* open for reading only (openat2's flags are out of reach: glibc falls back) */
  static const int write_flags[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND};
  for (size_t i = 0; i < sizeof write_flags / sizeof *write_flags && !rc; i++) {
    const scmp_datum_t f = (scmp_datum_t)write_flags[i];
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 1,
                          SCMP_A1(SCMP_CMP_MASKED_EQ, f, f));
    if (!rc)
      rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 1,
                            SCMP_A2(SCMP_CMP_MASKED_EQ, f, f));
  }
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
  if (!rc) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  FE_CHECK(!rc, FE_ERR_RESOURCE, "sandbox: cannot install the seccomp filter: %s", strerror(-rc));
  return FE_SUCCESS;
}

/* ---- limits ---------------------------------------------------------------- */

static int set_limit(int resource, rlim_t value)
{
  struct rlimit rl;
  if (getrlimit(resource, &rl)) return -1;
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < value) value = rl.rlim_max;
  rl.rlim_cur = rl.rlim_max = value;
  return setrlimit(resource, &rl);
}

static int enter_limits(const struct fe_sandbox *s)
{
  FILE *oom = fopen("/proc/self/oom_score_adj", "w"); /* raising one's own needs no privilege */
  if (oom) {
    fputs("1000\n", oom);
    fclose(oom);
  }
  signal(SIGXFSZ, SIG_IGN); /* a write to a file fails (EFBIG) instead of killing */
  int ok = set_limit(RLIMIT_FSIZE, 0) == 0 && set_limit(RLIMIT_CORE, 0) == 0;
  if (ok && s->memory) ok = set_limit(RLIMIT_AS, (rlim_t)s->memory) == 0;
  FE_CHECK(ok, FE_ERR_RESOURCE, "sandbox: cannot set the meshing process's limits: %s",
           strerror(errno));
  FE_CHECK(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == 0, FE_ERR_RESOURCE,
           "sandbox: cannot tie the meshing process to fesim: %s", strerror(errno));
  return FE_SUCCESS;
}

static void close_others(int keep)
{
  for (int fd = 3; fd < keep; fd++) close(fd);
  if (syscall(SYS_close_range, keep + 1, ~0u, 0) != 0)
    for (int fd = keep + 1; fd < 1024; fd++) close(fd);
}

int fe_sandbox_enter(struct fe_sandbox *s)
{
  close_others(s->keep_fd);
  FE_CALL(enter_limits(s));
  FE_CALL(enter_landlock(s));
  return enter_seccomp();
}

size_t fe_memory_available(size_t *total)
{
  FILE *f = fopen("/proc/meminfo", "r");
  unsigned long long kb = 0, total_kb = 0;
  char line[128];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemTotal: %llu kB", &total_kb) != 1)
      sscanf(line, "MemAvailable: %llu kB", &kb);
  if (f) fclose(f);
  *total = (size_t)total_kb * 1024;
  return (size_t)kb * 1024;
}
