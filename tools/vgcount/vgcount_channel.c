/* vgcount_channel.c: where vgcount's outputs go, and the channel that keeps
 * them out of the program's reach.
 *
 * By default an output is a file named by its option (%p, %q{VAR}). A
 * file is something the program under Valgrind can write too: it runs in
 * the same process, as the same user, and can find the path (its own
 * descriptors' links in /proc/self/fd name Valgrind's directories). So
 * workgate gives vgcount a socket instead (--vgcount-channel-fd=N): a
 * SOCK_SEQPACKET socket whose other end only workgate holds. vgcount moves
 * it to the top of Valgrind's reserved descriptors before the program runs,
 * where the program's own system calls cannot name it (Valgrind refuses
 * them), and where /proc/self/fd cannot reopen it (a socket's link cannot
 * be opened). Each output travels as messages: a header (magic, kind, pid,
 * flags) and at most kVgcChunk bytes of it, then an empty message with the
 * end flag. Workgate writes them to files in a directory the program
 * cannot reach (src/counter/vgcount_channel.h reads them).
 *
 * Across exec: the socket stays open (it is not close-on-exec), and the
 * Valgrind that runs the new program finds it at the same number. That
 * holds only when the number is reserved in every generation: Valgrind
 * reserves the top descriptors below RLIMIT_NOFILE's soft limit after
 * raising that limit towards the hard one. Workgate sets the two equal, so
 * no generation raises it; vgcount refuses a channel otherwise.
 *
 * Some system calls take a descriptor that Valgrind does not check against
 * its reserved range (sendmsg, fcntl, pwrite64, dup, ...), and some reach
 * another process's descriptors or memory (ptrace, process_vm_writev,
 * pidfd_getfd). When the program makes one that names the channel, or one
 * of the latter, vgcount sends a tamper message before the call runs, which
 * makes the run invalid in workgate.
 */
// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

// What each message starts with. Fixed-size fields, in the host's byte
// order: both ends run on the same machine.
typedef struct {
  UInt magic;  // kVgcChannelMagic
  UInt kind;   // VgcOutputKind, or kVgcChannelTamper
  Int pid;     // the process the output is of
  UInt flags;  // kVgcChannelEnd on the last message of an output
} VgcChannelHeader;

enum {
  kVgcChannelMagic = 0x31434756u,  // "VGC1"
  kVgcChannelEnd = 1,
  kVgcChannelTamper = 3,
  kVgcChunk = 16384,
};

static Int channel_fd = -1;

Bool vgc_channel_active(void) { return channel_fd >= 0; }

static Bool IsSocket(Int fd) {
  struct vg_stat st;
  return fd >= 0 && VG_(fstat)(fd, &st) == 0 && VKI_S_ISSOCK(st.mode);
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
    return True;
  }
  if (!IsSocket(given)) {
    VG_(message)(Vg_UserMsg, "vgcount: --vgcount-channel-fd=%d is not an open socket\n", given);
    return False;
  }
  if (sr_isError(VG_(dup2)(given, reserved))) return False;
  VG_(close)(given);
  channel_fd = reserved;
  return True;
}

static Bool Send(UInt kind, UInt flags, const HChar* data, SizeT length) {
  HChar message[sizeof(VgcChannelHeader) + kVgcChunk];
  VgcChannelHeader header;
  header.magic = kVgcChannelMagic;
  header.kind = kind;
  header.pid = VG_(getpid)();
  header.flags = flags;
  VG_(memcpy)(message, &header, sizeof header);
  if (length > 0) VG_(memcpy)(message + sizeof header, data, length);
  // One write on a SOCK_SEQPACKET socket is one message, whole or not at all.
  return VG_(write)(channel_fd, message, (Int)(sizeof header + length)) ==
         (Int)(sizeof header + length);
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

// Whether system call `number` with `args` reaches the channel or another
// process: the calls that name a descriptor Valgrind does not check against
// its reserved range (in that argument), and those that act on another
// process's descriptors or memory whatever their arguments.
static const HChar* Tampering(UInt number, const UWord* args, UInt arg_count) {
  const UWord fd = (UWord)channel_fd;
  const struct {
    UInt number;
    UInt arg;  // the argument that holds a descriptor; 6: any process's
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
    {__NR_pwrite64, 0, "pwrite64"},
    {__NR_pwritev, 0, "pwritev"},
#if defined(__NR_pwritev2)
    {__NR_pwritev2, 0, "pwritev2"},
#endif
#if defined(__NR_shutdown)
    {__NR_shutdown, 0, "shutdown"},
    {__NR_setsockopt, 0, "setsockopt"},
    {__NR_connect, 0, "connect"},
    {__NR_bind, 0, "bind"},
#endif
    {__NR_splice, 2, "splice"},
    {__NR_tee, 1, "tee"},
    {__NR_sendfile, 0, "sendfile"},
    {__NR_copy_file_range, 2, "copy_file_range"},
    {__NR_ptrace, 6, "ptrace"},
    {__NR_process_vm_writev, 6, "process_vm_writev"},
#if defined(__NR_pidfd_getfd)
    {__NR_pidfd_getfd, 6, "pidfd_getfd"},
#endif
  };
  for (SizeT i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
    if (calls[i].number != number) continue;
    if (calls[i].arg == 6) return calls[i].name;
    if (calls[i].arg < arg_count && args[calls[i].arg] == fd) return calls[i].name;
  }
  return NULL;
}

void vgc_channel_pre_syscall(UInt number, const UWord* args, UInt arg_count) {
  if (!vgc_channel_active()) return;
  const HChar* name = Tampering(number, args, arg_count);
  if (name == NULL) return;
  // Sent before the call runs, so nothing it does can take it back.
  Send(kVgcChannelTamper, kVgcChannelEnd, name, VG_(strlen)(name));
}
