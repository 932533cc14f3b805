/* vgcount_channel.c: where vgcount's outputs go, and the channel that keeps
 * them out of the program's reach.
 *
 * By default an output is a file named by its option (%p, %q{VAR}). A
 * file is something the program under Valgrind can write too: it runs in
 * the same process, as the same user, and can find the path (its own
 * descriptors' links in /proc/self/fd name Valgrind's directories). So
 * workgate gives vgcount a socket instead (--vgcount-channel-fd=N): a
 * SOCK_SEQPACKET socket whose other end only workgate holds, moved to the
 * top of Valgrind's reserved descriptors before the program runs.
 *
 * What makes a message vgcount's is not where it travels but what it
 * carries. The program shares vgcount's address space and its user, so no
 * descriptor is truly out of its reach: Valgrind checks only some system
 * calls against its reserved range (dup2's new descriptor, not its old one;
 * io_uring names descriptors inside its rings). Instead:
 *
 *   - Before the program's first instruction, and in a forked child before
 *     the child's first one, vgcount draws a 128-bit token of its own from
 *     the kernel's random source and sends it to workgate in a hello
 *     message. Workgate takes one hello per process (the kernel tells it
 *     which process sent each message: SCM_CREDENTIALS), and from then on
 *     only messages that carry that token. The program never runs between
 *     the process's start and its hello, so whatever it sends is either
 *     without the token, or a second hello: both make the run invalid.
 *   - A process that execs sends its outputs so far first (the work before
 *     the exec is counted), then an exec message; the Valgrind that runs
 *     the new program sends a hello of its own. An exec that fails is said
 *     (exec-failed) before the program runs again, so the program can never
 *     find the process between an exec and its hello.
 *   - A process whose last output never came (it was killed, or Valgrind
 *     died) is missing from the run: workgate makes that invalid.
 *
 * The token lives in this process's memory, where a program written against
 * vgcount's internals could read it, as it could rewrite the counters
 * themselves: that is the one thing left (docs/security.md). Reading
 * another process's memory (ptrace, process_vm_readv, /proc/PID/mem) and
 * reaching Valgrind's reserved descriptors (the dup family, fcntl, io_uring,
 * /proc/PID/fd/N, and the calls below that Valgrind does not check) make
 * vgcount send a tamper message before the call runs, and the run invalid.
 *
 * Across exec: the socket stays open (it is not close-on-exec), and the
 * Valgrind that runs the new program finds it at the same number. That
 * holds only when the number is reserved in every generation: Valgrind
 * reserves the top descriptors below RLIMIT_NOFILE's soft limit after
 * raising that limit towards the hard one. Workgate sets the two equal, so
 * no generation raises it; vgcount refuses a channel otherwise. Valgrind
 * never runs a program natively under --trace-children=yes (a setuid one
 * fails to exec instead), so every process of the tree is a vgcount's.
 */
// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

// The first of Valgrind's reserved descriptors. The core sets it at start
// (m_main.c) and exports it to the rest of the core only; the tool is
// linked with the core, so it reads the same variable.
extern Int VG_(fd_hard_limit);

// What each message starts with. Fixed-size fields, in the host's byte
// order: both ends run on the same machine.
typedef struct {
  UInt magic;  // kVgcChannelMagic
  UInt kind;   // VgcMessageKind
  Int pid;     // the process, as getpid() names it in its PID namespace
  UInt flags;  // kVgcChannelEnd on the last message of an output
  UChar token[VGC_TOKEN_BYTES];
} VgcChannelHeader;

enum {
  kVgcChannelMagic = 0x32434756u,  // "VGC2"
  kVgcChannelEnd = 1,
  kVgcChunk = 16384,
};

static Int channel_fd = -1;
static UChar token[VGC_TOKEN_BYTES];
// What the file outputs get instead of invalid messages: each reason on an
// "invalid:" line of the report (vgc_channel_invalid_lines).
#define VGC_MAX_INVALID 4
static HChar invalid_reasons[VGC_MAX_INVALID][64];
static Int invalid_count = 0;

Bool vgc_channel_active(void) { return channel_fd >= 0; }

static Bool IsSocket(Int fd) {
  struct vg_stat st;
  return fd >= 0 && VG_(fstat)(fd, &st) == 0 && VKI_S_ISSOCK(st.mode);
}

static Bool Send(UInt kind, UInt flags, const void* data, SizeT length) {
  HChar message[sizeof(VgcChannelHeader) + kVgcChunk];
  VgcChannelHeader header;
  VG_(memset)(&header, 0, sizeof header);
  header.magic = kVgcChannelMagic;
  header.kind = kind;
  header.pid = VG_(getpid)();
  header.flags = flags;
  VG_(memcpy)(header.token, token, sizeof token);
  VG_(memcpy)(message, &header, sizeof header);
  if (length > 0) VG_(memcpy)(message + sizeof header, data, length);
  // One write on a SOCK_SEQPACKET socket is one message, whole or not at all.
  return VG_(write)(channel_fd, message, (Int)(sizeof header + length)) ==
         (Int)(sizeof header + length);
}

// This process's pid and its parent's (vgcount.h: vgc_parent_pid). A child
// made by fork starts with a copy of its parent's memory, where process_pid
// is still the parent's pid: the one thing that names its parent whatever
// ran first after the fork.
static Int process_pid, parent_pid;

void vgc_process_start(void) {
  process_pid = VG_(getpid)();
  parent_pid = VG_(getppid)();
}

Int vgc_parent_pid(void) { return parent_pid; }

// A fresh token from the kernel, and the hello that gives it to workgate.
// Without randomness there is no token worth the name: stop, and the
// process is missing from the run.
static void Hello(void) {
  SysRes opened = VG_(open)("/dev/urandom", VKI_O_RDONLY, 0);
  Int got = -1;
  if (!sr_isError(opened)) {
    got = VG_(read)((Int)sr_Res(opened), token, (Int)sizeof token);
    VG_(close)((Int)sr_Res(opened));
  }
  if (got != (Int)sizeof token) {
    VG_(umsg)("vgcount: cannot read /dev/urandom for the channel's token\n");
    VG_(exit)(125);
  }
  const Int ppid = parent_pid;
  if (!Send(kVgcMessageHello, 0, &ppid, sizeof ppid)) {
    VG_(umsg)("vgcount: cannot send its hello to workgate\n");
    VG_(exit)(125);
  }
}

Bool vgc_channel_open(Int given) {
  struct vki_rlimit limit;
  if (VG_(getrlimit)(VKI_RLIMIT_NOFILE, &limit) != 0) return False;
  if (limit.rlim_cur != limit.rlim_max || limit.rlim_cur < 16) {
    VG_(message)
    (Vg_UserMsg,
     "vgcount: --vgcount-channel-fd needs RLIMIT_NOFILE's soft limit equal to its "
     "hard limit (they are %llu and %llu)\n",
     (ULong)limit.rlim_cur, (ULong)limit.rlim_max);
    return False;
  }
  const Int reserved = (Int)limit.rlim_cur - 1;
  if (IsSocket(reserved)) {
    // Inherited from the Valgrind that ran this process before its exec.
    // The number `given` may name the program's own descriptor now: unused.
    channel_fd = reserved;
  } else {
    if (!IsSocket(given)) {
      VG_(message)(Vg_UserMsg, "vgcount: --vgcount-channel-fd=%d is not an open socket\n", given);
      return False;
    }
    if (sr_isError(VG_(dup2)(given, reserved))) return False;
    VG_(close)(given);
    channel_fd = reserved;
  }
  Hello();
  return True;
}

void vgc_channel_after_fork(void) {
  parent_pid = process_pid;
  process_pid = VG_(getpid)();
  if (vgc_channel_active()) Hello();
}

Bool vgc_output_open(VgcOutput* out, VgcOutputKind kind, const HChar* option,
                     const HChar* path_template) {
  out->kind = kind;
  out->fd = -1;
  out->path = NULL;
  if (vgc_channel_active()) return True;
  out->path = VG_(expand_file_name)(option, path_template);
  SysRes opened = VG_(open)(out->path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
                            VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
  if (!sr_isError(opened)) {
    out->fd = (Int)sr_Res(opened);
    return True;
  }
  // Even under -q: a missing file must not go unexplained.
  VG_(message)(Vg_UserMsg, "vgcount: cannot write %s\n", out->path);
  VG_(free)(out->path);
  out->path = NULL;
  return False;
}

Bool vgc_output_write(VgcOutput* out, const HChar* text, SizeT length) {
  while (length > 0) {
    if (vgc_channel_active()) {
      const SizeT chunk = length < kVgcChunk ? length : kVgcChunk;
      if (!Send((UInt)out->kind, 0, text, chunk)) return False;
      text += chunk;
      length -= chunk;
      continue;
    }
    const Int written = VG_(write)(out->fd, text, (Int)length);
    if (written <= 0) return False;
    text += written;
    length -= (SizeT)written;
  }
  return True;
}

Bool vgc_output_close(VgcOutput* out, Bool ok) {
  if (vgc_channel_active()) {
    // The end message says the output is whole; an output cut short by a
    // failed write has none, which workgate reports.
    ok = ok && Send((UInt)out->kind, kVgcChannelEnd, NULL, 0);
    if (!ok) VG_(message)(Vg_UserMsg, "vgcount: cannot send an output to workgate\n");
    return ok;
  }
  VG_(close)(out->fd);
  if (!ok) VG_(message)(Vg_UserMsg, "vgcount: cannot write %s\n", out->path);
  VG_(free)(out->path);
  out->path = NULL;
  return ok;
}

void vgc_channel_exec(const HChar* path) {
  if (!vgc_channel_active()) return;
  // A path is the program's text: bounded here, made safe by workgate.
  const SizeT length = path != NULL ? VG_(strlen)(path) : 0;
  Send(kVgcMessageExec, 0, path, length < 1024 ? length : 1024);
}

void vgc_channel_exec_failed(void) {
  if (vgc_channel_active()) Send(kVgcMessageExecFailed, 0, NULL, 0);
}

void vgc_channel_invalid(VgcMessageKind kind, const HChar* what) {
  // Sent before what it names runs, so nothing that follows can take it
  // back; without a channel, the report says it (vgc_channel_invalid_lines).
  if (vgc_channel_active()) {
    Send((UInt)kind, kVgcChannelEnd, what, VG_(strlen)(what));
  } else {
    VG_(umsg)("vgcount: the count is not valid: %s\n", what);
  }
  for (Int i = 0; i < invalid_count; i++) {
    if (VG_(strcmp)(invalid_reasons[i], what) == 0) return;
  }
  if (invalid_count < VGC_MAX_INVALID) {
    VG_(snprintf)
    (invalid_reasons[invalid_count++], sizeof invalid_reasons[0], "%s %s",
     kind == kVgcMessageTamper ? "tamper" : "uncounted", what);
  }
}

Int vgc_channel_invalid_count(void) { return invalid_count; }
const HChar* vgc_channel_invalid_reason(Int i) { return invalid_reasons[i]; }

// ---- What the program may not do ------------------------------------------

// Whether `fd` is one of Valgrind's reserved descriptors (its log, the
// channel, the client's executable, ...).
static Bool Reserved(UWord fd) { return (Word)fd >= VG_(fd_hard_limit) && (Word)fd < (1 << 30); }

// Whether the client string at `p` is a path to another process's memory
// or to a reserved descriptor through /proc: "/proc/P[/task/T]/mem" or
// ".../fd/N" with N reserved, P and T numbers, "self" or "thread-self"
// ("/dev/fd/N" is a link to /proc/self/fd). Read with bounds: the string is
// the program's.
static Bool ReachesThroughProc(Addr p) {
  HChar path[96];
  SizeT n = 0;
  if (p == 0) return False;
  for (; n + 1 < sizeof path; n++) {
    if (!VG_(am_is_valid_for_client)(p + n, 1, VKI_PROT_READ)) return False;
    path[n] = ((const HChar*)p)[n];
    if (path[n] == '\0') break;
  }
  path[n] = '\0';
  const HChar* s = path;
  if (VG_(strncmp)(s, "/dev/fd/", 8) == 0) {
    s += 8;
  } else {
    if (VG_(strncmp)(s, "/proc/", 6) != 0) return False;
    s += 6;
    // The process: a number, "self" or "thread-self"; then /task/T.
    for (Int level = 0; level < 2; level++) {
      if (VG_(strncmp)(s, "self/", 5) == 0) {
        s += 5;
      } else if (VG_(strncmp)(s, "thread-self/", 12) == 0) {
        s += 12;
      } else {
        const HChar* digits = s;
        while (*s >= '0' && *s <= '9') s++;
        if (s == digits || *s != '/') return False;
        s++;
      }
      if (level == 0 && VG_(strncmp)(s, "task/", 5) == 0) {
        s += 5;
        continue;
      }
      break;
    }
    if (VG_(strcmp)(s, "mem") == 0) return True;
    if (VG_(strncmp)(s, "fd/", 3) != 0) return False;
    s += 3;
  }
  Long fd = 0;
  const HChar* digits = s;
  while (*s >= '0' && *s <= '9' && fd < (1 << 30)) fd = fd * 10 + (*s++ - '0');
  return s != digits && *s == '\0' && Reserved((UWord)fd);
}

// The name of the system call `number` with `args` when it reaches
// Valgrind's reserved descriptors or another process, else NULL.
static const HChar* Tampering(UInt number, const UWord* args, UInt arg_count) {
  const struct {
    UInt number;
    UInt arg;  // the argument that holds a descriptor; 6: whatever it names
    const HChar* name;
  } calls[] = {
#if defined(__NR_sendmsg)
    {__NR_sendmsg, 0, "sendmsg"},
#endif
#if defined(__NR_sendmmsg)
    {__NR_sendmmsg, 0, "sendmmsg"},
#endif
#if defined(__NR_sendto)
    {__NR_sendto, 0, "sendto"},
#endif
    {__NR_fcntl, 0, "fcntl"},
    {__NR_ioctl, 0, "ioctl"},
    {__NR_dup, 0, "dup"},
#if defined(__NR_dup2)
    {__NR_dup2, 0, "dup2"},
#endif
    {__NR_dup3, 0, "dup3"},
    {__NR_pwrite64, 0, "pwrite64"},
    {__NR_pwritev, 0, "pwritev"},
#if defined(__NR_pwritev2)
    {__NR_pwritev2, 0, "pwritev2"},
#endif
    {__NR_ftruncate, 0, "ftruncate"},
    {__NR_fallocate, 0, "fallocate"},
#if defined(__NR_shutdown)
    {__NR_shutdown, 0, "shutdown"},
    {__NR_setsockopt, 0, "setsockopt"},
    {__NR_connect, 0, "connect"},
    {__NR_bind, 0, "bind"},
#endif
    {__NR_splice, 0, "splice"},
    {__NR_splice, 2, "splice"},
    {__NR_tee, 0, "tee"},
    {__NR_tee, 1, "tee"},
    {__NR_sendfile, 0, "sendfile"},
    {__NR_sendfile, 1, "sendfile"},
    {__NR_copy_file_range, 0, "copy_file_range"},
    {__NR_copy_file_range, 2, "copy_file_range"},
    {__NR_ptrace, 6, "ptrace"},
    {__NR_process_vm_readv, 6, "process_vm_readv"},
    {__NR_process_vm_writev, 6, "process_vm_writev"},
#if defined(__NR_pidfd_getfd)
    {__NR_pidfd_getfd, 6, "pidfd_getfd"},
#endif
#if defined(__NR_io_uring_setup)
    // A ring's requests name descriptors that no argument of a system call
    // shows, so nothing here could tell what they reach.
    {__NR_io_uring_setup, 6, "io_uring_setup"},
    {__NR_io_uring_enter, 6, "io_uring_enter"},
    {__NR_io_uring_register, 6, "io_uring_register"},
#endif
  };
  for (SizeT i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
    if (calls[i].number != number) continue;
    if (calls[i].arg == 6) return calls[i].name;
    if (calls[i].arg < arg_count && Reserved(args[calls[i].arg])) return calls[i].name;
  }
  // Opening a path: the path's own argument.
#if defined(__NR_open)
  if (number == __NR_open && arg_count > 0 && ReachesThroughProc(args[0])) return "open";
#endif
  if (number == __NR_openat && arg_count > 1 && ReachesThroughProc(args[1])) return "openat";
#if defined(__NR_openat2)
  if (number == __NR_openat2 && arg_count > 1 && ReachesThroughProc(args[1])) return "openat2";
#endif
  return NULL;
}

void vgc_channel_pre_syscall(UInt number, const UWord* args, UInt arg_count) {
  const HChar* name = Tampering(number, args, arg_count);
  if (name != NULL) vgc_channel_invalid(kVgcMessageTamper, name);
}
