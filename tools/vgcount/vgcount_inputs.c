/* vgcount_inputs.c: what the program read from the file system
 * (--vgcount-inputs=yes).
 *
 * A count is a function of the program and of what it reads. workgate's
 * result store may give a stored count again only while what the program
 * read is as it was, so the tool records, at each system call that reads
 * the file system, what was read and the state it was found in, and the
 * report lists it (src/counter/input_record.h has the line format):
 *
 *   open     open, openat, openat2 for reading (O_RDONLY or O_RDWR) of a
 *            regular file, and mmap of one from a descriptor: the state
 *            is the descriptor's fstat
 *   exec     execve, execveat, before the exec (its outputs go out as a
 *            part before it runs: vgc_send_part_before_exec), with the
 *            path's stat: an exec that fails stays recorded
 *   list     getdents64 (getdents): the directory the descriptor names in
 *            /proc/self/fd, with its fstat
 *   meta     stat, newfstatat, statx, access, faccessat, faccessat2, an
 *            opened directory, an O_PATH descriptor: the path's stat
 *   lmeta    lstat, readlink, readlinkat, AT_SYMLINK_NOFOLLOW, an
 *            O_PATH|O_NOFOLLOW descriptor: the link's own state
 *   machine  an open (or a list) of a /proc or /sys file whose text
 *            changes as the machine runs, by vgcount_pin.c's rule
 *
 * A call that fails is recorded too, as "missing" (ENOENT, ENOTDIR) or
 * "error:N": a program that looks for a file and finds none depends on its
 * absence. Not recorded: writes (O_WRONLY), devices, fifos and sockets,
 * fstat and its AT_EMPTY_PATH forms (the descriptor's open was recorded),
 * calls that name nothing (EFAULT, EBADF), and the files of a process
 * itself (/proc/self/..., /proc/thread-self/..., /proc/<pid>/...), whose
 * text is the process's own making.
 *
 * Paths are the program's, read from its memory with bounds at the call,
 * at most VGC_PATH_BYTES; a relative one is joined to the process's
 * working directory or to the directory its descriptor names
 * (/proc/self/cwd, /proc/self/fd/N), nothing more: "..", "." and links stay
 * as named. Where the tool cannot name what a successful call read (a path
 * unreadable, or relative to a directory that has no path), where a path
 * is longer than it reads, or where the records pass their bound, it
 * records nothing more and the report says "input: overflow": the inputs
 * are then unknown.
 *
 * Each distinct record line is kept once per process, in a hash table, in
 * the order met. A forked child starts with none (its parent's are the
 * parent's), and so does the program after an exec (a part of its own).
 *
 * Cost: nothing per instruction; per system call one switch on its number,
 * and for the calls above a stat or a readlink or two of the tool's own
 * (tools/vgcount/README.md has the figures).
 */
// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pub_tool_aspacemgr.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

// The records one process keeps, and the bytes of their report lines: past
// either, "input: overflow". The bytes bound keeps a report that names
// long paths within what workgate reads of one (src/counter).
#define VGC_INPUTS_MAX 65536
#define VGC_INPUTS_MAX_BYTES (8u << 20)
// A path as the program gives it, with its NUL: Linux's PATH_MAX.
#define VGC_PATH_BYTES 4096
// Joined to a directory's path, which is at most as long.
#define VGC_JOINED_BYTES (2 * VGC_PATH_BYTES)
// KIND STATE PATH, the path escaped (3 bytes a byte at most).
#define VGC_LINE_BYTES (160 + 3 * VGC_JOINED_BYTES)

// Linux's numbers that Valgrind's kernel headers do not spell (the same on
// amd64 and arm64 but where noted).
#define VGC_O_PATH 010000000
#if defined(VGA_arm64)
#define VGC_O_NOFOLLOW 0100000
#else
#define VGC_O_NOFOLLOW 0400000
#endif
#define VGC_O_CLOEXEC 02000000
#define VGC_S_IFMT 0170000
#define VGC_S_IFREG 0100000
#define VGC_S_IFDIR 0040000
#define VGC_AT_FDCWD (-100)
#define VGC_AT_SYMLINK_NOFOLLOW 0x100
#define VGC_AT_EMPTY_PATH 0x1000

typedef enum { kOpen, kExec, kList, kMeta, kLinkMeta, kMachine } Kind;
static const HChar* const kind_names[] = {"open", "exec", "list", "meta", "lmeta", "machine"};

typedef struct Record {
  // VgHashNode's layout: the table's chain and key come first.
  struct Record* chain;
  UWord key;            // the line's hash
  struct Record* next;  // in the order met
  SizeT length;
  const HChar* text;  // the line without "input: " and "\n", after the node
} Record;

static Bool enabled = False;
static VgHashTable* table = NULL;
static Record* first = NULL;
static Record* last = NULL;
static UInt count = 0;
static SizeT bytes = 0;
static Bool overflow = False;

// One call's path, joined path and line at a time: Valgrind runs one
// thread at a time, and nothing here is re-entered.
static HChar named[VGC_PATH_BYTES];
static HChar joined[VGC_JOINED_BYTES];
static HChar line[VGC_LINE_BYTES];

void vgc_inputs_set_enabled(Bool on) { enabled = on; }
Bool vgc_inputs_enabled(void) { return enabled; }

static void FreeRecord(void* node) { VG_(free)(node); }

void vgc_inputs_forget(void) {
  if (table != NULL) VG_(HT_destruct)(table, FreeRecord);
  table = NULL;
  first = last = NULL;
  count = 0;
  bytes = 0;
  overflow = False;
}

static Word SameLine(const void* a, const void* b) {
  const Record* x = a;
  const Record* y = b;
  if (x->length != y->length) return 1;
  return VG_(memcmp)(x->text, y->text, x->length) != 0;
}

// FNV-1a.
static UWord Hash(const HChar* text, SizeT length) {
  ULong h = 14695981039346656037ULL;
  for (SizeT i = 0; i < length; i++) {
    h ^= (UChar)text[i];
    h *= 1099511628211ULL;
  }
  return (UWord)h;
}

// Keeps `text` (`length` bytes) unless it is kept already.
static void Keep(const HChar* text, SizeT length) {
  if (overflow) return;
  if (table == NULL) table = VG_(HT_construct)("vgcount.inputs");
  Record probe;
  probe.key = Hash(text, length);
  probe.length = length;
  probe.text = text;
  if (VG_(HT_gen_lookup)(table, &probe, SameLine) != NULL) return;
  // "input: " and the newline.
  const SizeT written = length + 8;
  if (count >= VGC_INPUTS_MAX || bytes + written > VGC_INPUTS_MAX_BYTES) {
    overflow = True;
    return;
  }
  Record* r = VG_(malloc)("vgcount.inputs.record", sizeof(Record) + length);
  HChar* copy = (HChar*)(r + 1);
  VG_(memcpy)(copy, text, length);
  r->key = probe.key;
  r->length = length;
  r->text = copy;
  r->next = NULL;
  VG_(HT_add_node)(table, r);
  if (last != NULL) {
    last->next = r;
  } else {
    first = r;
  }
  last = r;
  count++;
  bytes += written;
}

// Appends `path` to `out` (at `*used` of VGC_LINE_BYTES) escaped: every
// byte outside '!'..'~' and every '%' as %XX.
static void AppendEscaped(HChar* out, SizeT* used, const HChar* path) {
  static const HChar hex[] = "0123456789ABCDEF";
  for (const UChar* p = (const UChar*)path; *p != '\0' && *used + 4 < VGC_LINE_BYTES; p++) {
    if (*p >= '!' && *p <= '~' && *p != '%') {
      out[(*used)++] = (HChar)*p;
    } else {
      out[(*used)++] = '%';
      out[(*used)++] = hex[*p >> 4];
      out[(*used)++] = hex[*p & 15];
    }
  }
  out[*used] = '\0';
}

// Records `path` (absolute) as `kind`: found as `st` when `error` is 0,
// else failed with errno `error`.
static void Note(Kind kind, Int error, const struct vg_stat* st, const HChar* path) {
  Int n;
  if (error == VKI_ENOENT || error == VKI_ENOTDIR) {
    n = VG_(snprintf)(line, 64, "%s missing ", kind_names[kind]);
  } else if (error != 0) {
    n = VG_(snprintf)(line, 64, "%s error:%d ", kind_names[kind], error);
  } else {
    const Long mtime = (Long)st->mtime * 1000000000LL + (Long)st->mtime_nsec;
    const Long ctime = (Long)st->ctime * 1000000000LL + (Long)st->ctime_nsec;
    n = VG_(snprintf)(line, 160, "%s %llu:%llu:%u:%lld:%lld:%lld ", kind_names[kind], st->dev,
                      st->ino, st->mode, (Long)st->size, mtime, ctime);
  }
  SizeT used = (SizeT)n;
  AppendEscaped(line, &used, path);
  Keep(line, used);
}

// Whether `path` is a file of a process itself: /proc/self, /proc/thread-self
// or /proc/<digits>, or under one.
static Bool IsProcessFile(const HChar* path) {
  if (VG_(strncmp)(path, "/proc/", 6) != 0) return False;
  const HChar* s = path + 6;
  const HChar* end = s;
  if (VG_(strncmp)(s, "self", 4) == 0) {
    end = s + 4;
  } else if (VG_(strncmp)(s, "thread-self", 11) == 0) {
    end = s + 11;
  } else {
    while (*end >= '0' && *end <= '9') end++;
    if (end == s) return False;
  }
  return *end == '/' || *end == '\0';
}

static Bool OnProcOrSys(const HChar* path) {
  return VG_(strncmp)(path, "/proc/", 6) == 0 || VG_(strncmp)(path, "/sys/", 5) == 0;
}

// Reads a link of the tool's own (/proc/self/...) into `out` (`size`
// bytes): False when it cannot, or when it names no path (a socket, a pipe,
// a file deleted since, "/memfd:... (deleted)").
static Bool ReadLink(const HChar* link, HChar* out, SizeT size) {
  const SSizeT n = VG_(readlink)(link, out, size - 1);
  if (n <= 0 || (SizeT)n >= size - 1) return False;
  out[n] = '\0';
  static const HChar deleted[] = " (deleted)";
  const SizeT tail = sizeof(deleted) - 1;
  if ((SizeT)n >= tail && VG_(strcmp)(out + n - tail, deleted) == 0) return False;
  return out[0] == '/';
}

// The path descriptor `fd` names, as /proc/self/fd gives it.
static Bool FdPath(Int fd, HChar* out, SizeT size) {
  HChar link[48];
  VG_(snprintf)(link, sizeof link, "/proc/self/fd/%d", fd);
  return fd >= 0 && ReadLink(link, out, size);
}

typedef enum { kPathOk, kPathUnreadable, kPathTooLong } PathRead;

// Copies the NUL-ended string at client address `p` into `named`, checking
// each piece of it that lies in one 4 KiB page before reading it.
static PathRead ReadClientPath(Addr p) {
  if (p == 0) return kPathUnreadable;
  SizeT n = 0;
  while (n < VGC_PATH_BYTES) {
    const Addr at = p + n;
    SizeT span = ((at | 4095) + 1) - at;
    if (span > VGC_PATH_BYTES - n) span = VGC_PATH_BYTES - n;
    if (!VG_(am_is_valid_for_client)(at, span, VKI_PROT_READ)) return kPathUnreadable;
    for (SizeT i = 0; i < span; i++, n++) {
      named[n] = ((const HChar*)p)[n];
      if (named[n] == '\0') return kPathOk;
    }
  }
  return kPathTooLong;
}

// Whether the client string at `p` is "" (an AT_EMPTY_PATH call on the
// descriptor itself).
static Bool EmptyPath(Addr p) { return ReadClientPath(p) == kPathOk && named[0] == '\0'; }

typedef enum { kNamed, kNothing, kUnknown, kTooLong } Naming;

// The path at client address `p`, relative to directory descriptor `dirfd`
// (VGC_AT_FDCWD: the working directory), made absolute in `joined`.
// kNothing for an empty path; kUnknown where it cannot be read, or its
// directory has no path.
static Naming JoinedPath(Int dirfd, Addr p) {
  switch (ReadClientPath(p)) {
    case kPathOk:
      break;
    case kPathUnreadable:
      return kUnknown;
    case kPathTooLong:
      return kTooLong;
  }
  if (named[0] == '\0') return kNothing;
  if (named[0] == '/') {
    VG_(strcpy)(joined, named);
    return kNamed;
  }
  const Bool got = dirfd == VGC_AT_FDCWD ? ReadLink("/proc/self/cwd", joined, VGC_PATH_BYTES)
                                         : FdPath(dirfd, joined, VGC_PATH_BYTES);
  if (!got) return kUnknown;
  SizeT n = VG_(strlen)(joined);
  if (joined[n - 1] != '/') joined[n++] = '/';
  VG_(strcpy)(joined + n, named);
  return kNamed;
}

// The call failed without naming anything: nothing was looked up.
static Bool NamedNothing(Int error) { return error == VKI_EFAULT || error == VKI_EBADF; }

// Names in `joined` the path a call looked up (`dirfd`, client `p`), which
// failed with `error` (0: it succeeded): False when it is not to be
// recorded. What a successful call read unnamed, and a path longer than
// the tool reads, leave the inputs unknown (overflow).
static Bool Name(Int dirfd, Addr p, Int error) {
  switch (JoinedPath(dirfd, p)) {
    case kNamed:
      return !IsProcessFile(joined);
    case kNothing:
      return False;
    case kTooLong:
      overflow = True;
      return False;
    case kUnknown:
      if (error == 0) overflow = True;
      return False;
  }
  return False;
}

// The state of `path` without following its last link: the tool API has
// no lstat, so an O_PATH descriptor of the link itself, and its fstat.
static Int LinkState(const HChar* path, struct vg_stat* st) {
  const SysRes opened = VG_(open)(path, VGC_O_PATH | VGC_O_NOFOLLOW | VGC_O_CLOEXEC, 0);
  if (sr_isError(opened)) return (Int)sr_Err(opened);
  const Int fd = (Int)sr_Res(opened);
  const Int failed = VG_(fstat)(fd, st);
  VG_(close)(fd);
  return failed != 0 ? VKI_EBADF : 0;
}

static Int PathState(const HChar* path, struct vg_stat* st) {
  const SysRes res = VG_(stat)(path, st);
  return sr_isError(res) ? (Int)sr_Err(res) : 0;
}

// A stat-like call on (`dirfd`, client `p`): `nofollow` for lstat's kind.
static void OnMeta(Int dirfd, Addr p, Bool nofollow, SysRes result) {
  const Int error = sr_isError(result) ? (Int)sr_Err(result) : 0;
  if (error != 0 && NamedNothing(error)) return;
  if (!Name(dirfd, p, error)) return;
  struct vg_stat st;
  const Int state = error != 0 ? error : nofollow ? LinkState(joined, &st) : PathState(joined, &st);
  Note(nofollow ? kLinkMeta : kMeta, state, &st, joined);
}

// The flags of an open call; openat2's are in the struct open_how its third
// argument points at.
static UWord OpenFlags(UInt number, const UWord* args) {
  (void)number;  // arm64 has no open, and older Valgrinds no openat2
#if defined(__NR_open)
  if (number == __NR_open) return args[1];
#endif
#if defined(__NR_openat2)
  if (number == __NR_openat2) {
    return VG_(am_is_valid_for_client)(args[2], sizeof(ULong), VKI_PROT_READ)
               ? (UWord) * (const ULong*)args[2]
               : 0;
  }
#endif
  return args[2];
}

// What a descriptor of a regular file that the program reads names
// (`path`, as named), by the file the kernel says it is: a process's own
// (nothing), a /proc or /sys file (open or machine by vgcount_pin.c's
// rule), or any other (open).
static void RecordRead(Int fd, const struct vg_stat* st, const HChar* path, Kind kind) {
  static HChar kernel_name[VGC_PATH_BYTES];
  if (FdPath(fd, kernel_name, sizeof kernel_name)) {
    if (IsProcessFile(kernel_name)) return;
    if (OnProcOrSys(kernel_name) && !vgc_pin_machine_file_is_fixed(kernel_name)) kind = kMachine;
  }
  Note(kind, 0, st, path);
}

static void OnOpen(UInt number, const UWord* args, SysRes result) {
  const Bool at = True
#if defined(__NR_open)
                  && number != __NR_open
#endif
      ;
  const UWord flags = OpenFlags(number, args);
  // O_PATH: a descriptor for the path alone, its metadata (without the
  // last link, with O_NOFOLLOW).
  const Bool path_only = (flags & VGC_O_PATH) != 0;
  const Kind path_kind = (flags & VGC_O_NOFOLLOW) != 0 ? kLinkMeta : kMeta;
  // Writes are outputs; O_ACCMODE 3 reads nothing either (ioctl only).
  if (!path_only && (flags & VKI_O_ACCMODE) != VKI_O_RDONLY &&
      (flags & VKI_O_ACCMODE) != VKI_O_RDWR) {
    return;
  }
  const Int error = sr_isError(result) ? (Int)sr_Err(result) : 0;
  if (error != 0 && NamedNothing(error)) return;
  if (!Name(at ? (Int)args[0] : VGC_AT_FDCWD, at ? args[1] : args[0], error)) return;
  if (error != 0) {
    Note(path_only ? path_kind : kOpen, error, NULL, joined);
    return;
  }
  const Int fd = (Int)sr_Res(result);
  struct vg_stat st;
  if (VG_(fstat)(fd, &st) != 0) {
    overflow = True;
    return;
  }
  const UInt type = st.mode & VGC_S_IFMT;
  if (path_only) {
    Note(path_kind, 0, &st, joined);
  } else if (type == VGC_S_IFDIR) {
    Note(kMeta, 0, &st, joined);
  } else if (type == VGC_S_IFREG) {
    RecordRead(fd, &st, joined, kOpen);
  }
  // Devices, fifos, sockets: not the file system's content.
}

// A descriptor the program read from as a whole (a listed directory, a
// mapped file): named by the kernel.
static void OnDescriptor(Int fd, Kind kind, UInt want_type) {
  static HChar path[VGC_PATH_BYTES];
  struct vg_stat st;
  if (VG_(fstat)(fd, &st) != 0 || (st.mode & VGC_S_IFMT) != want_type) return;
  if (!FdPath(fd, path, sizeof path)) {
    // A file deleted since, or one made without a name (memfd): none
    // that a later run could find by its path.
    return;
  }
  if (IsProcessFile(path)) return;
  if (OnProcOrSys(path) && !vgc_pin_machine_file_is_fixed(path)) kind = kMachine;
  Note(kind, 0, &st, path);
}

void vgc_inputs_pre_syscall(UInt number, const UWord* args, UInt arg_count) {
  if (!enabled) return;
  Int dirfd = VGC_AT_FDCWD;
  Addr p = 0;
  if (number == __NR_execve && arg_count >= 1) {
    p = args[0];
#if defined(__NR_execveat)
  } else if (number == __NR_execveat && arg_count >= 5) {
    dirfd = (Int)args[0];
    p = args[1];
    if ((args[4] & VGC_AT_EMPTY_PATH) != 0 && EmptyPath(p)) {
      OnDescriptor(dirfd, kExec, VGC_S_IFREG);
      return;
    }
#endif
  } else {
    return;
  }
  // Before the exec, so whether it fails is not known: as if it succeeds,
  // unless it names nothing the kernel could read either (EFAULT).
  if (ReadClientPath(p) == kPathUnreadable || !Name(dirfd, p, 0)) return;
  struct vg_stat st;
  const Int state = PathState(joined, &st);
  Note(kExec, state, &st, joined);
}

void vgc_inputs_post_syscall(UInt number, const UWord* args, UInt arg_count, SysRes result) {
  if (!enabled) return;
  (void)arg_count;
  switch (number) {
#if defined(__NR_open)
    case __NR_open:
#endif
#if defined(__NR_openat2)
    case __NR_openat2:
#endif
    case __NR_openat:
      OnOpen(number, args, result);
      return;
#if defined(__NR_getdents)
    case __NR_getdents:
#endif
    case __NR_getdents64:
      if (!sr_isError(result)) OnDescriptor((Int)args[0], kList, VGC_S_IFDIR);
      return;
#if defined(__NR_mmap2)
    case __NR_mmap2:
#endif
    case __NR_mmap:
      if (!sr_isError(result) && (args[3] & VKI_MAP_ANONYMOUS) == 0 && (Int)args[4] >= 0) {
        OnDescriptor((Int)args[4], kOpen, VGC_S_IFREG);
      }
      return;
#if defined(__NR_stat)
    case __NR_stat:
      OnMeta(VGC_AT_FDCWD, args[0], False, result);
      return;
#endif
#if defined(__NR_lstat)
    case __NR_lstat:
      OnMeta(VGC_AT_FDCWD, args[0], True, result);
      return;
#endif
#if defined(__NR_fstatat64)
    case __NR_fstatat64:
#endif
    case __NR_newfstatat:
    case __NR_statx: {
      // newfstatat(dirfd, path, buf, flags); statx(dirfd, path, flags, ...).
      const UWord flags = number == __NR_statx ? args[2] : args[3];
      if ((flags & VGC_AT_EMPTY_PATH) != 0 && EmptyPath(args[1])) return;  // an fstat
      OnMeta((Int)args[0], args[1], (flags & VGC_AT_SYMLINK_NOFOLLOW) != 0, result);
      return;
    }
#if defined(__NR_access)
    case __NR_access:
      OnMeta(VGC_AT_FDCWD, args[0], False, result);
      return;
#endif
    case __NR_faccessat:
      OnMeta((Int)args[0], args[1], False, result);
      return;
#if defined(__NR_faccessat2)
    case __NR_faccessat2:
      if ((args[3] & VGC_AT_EMPTY_PATH) != 0 && EmptyPath(args[1])) return;
      OnMeta((Int)args[0], args[1], (args[3] & VGC_AT_SYMLINK_NOFOLLOW) != 0, result);
      return;
#endif
#if defined(__NR_readlink)
    case __NR_readlink:
      OnMeta(VGC_AT_FDCWD, args[0], True, result);
      return;
#endif
    case __NR_readlinkat:
      OnMeta((Int)args[0], args[1], True, result);
      return;
    default:
      return;
  }
}

Bool vgc_inputs_write(VgcOutput* out) {
  if (!enabled) return True;
  // Lines gathered into pieces of the channel's message size: one write per
  // record would be one message per record.
  static HChar piece[16384];
  SizeT used = 0;
  Bool ok = True;
  for (const Record* r = first; r != NULL && ok; r = r->next) {
    const SizeT need = r->length + 8;
    if (used + need > sizeof piece) {
      ok = vgc_output_write(out, piece, used);
      used = 0;
    }
    if (need > sizeof piece) {
      ok = ok && vgc_output_write(out, "input: ", 7) && vgc_output_write(out, r->text, r->length) &&
           vgc_output_write(out, "\n", 1);
      continue;
    }
    VG_(memcpy)(piece + used, "input: ", 7);
    VG_(memcpy)(piece + used + 7, r->text, r->length);
    piece[used + need - 1] = '\n';
    used += need;
  }
  if (ok && used > 0) ok = vgc_output_write(out, piece, used);
  if (ok && overflow) ok = vgc_output_write(out, "input: overflow\n", 16);
  return ok;
}
