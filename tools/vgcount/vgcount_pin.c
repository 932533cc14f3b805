/* vgcount_pin.c: pins time and entropy inside the counter.
 *
 * A program whose work depends on the clock or on random bytes does
 * different work on every run, and one count per side then says nothing.
 * The LD_PRELOAD shim (src/shim) pins what a program asks glibc for; the
 * tool sees every instruction and system call, so it pins the rest, with
 * the same sequences (src/shim/pinned_sequence.h) and the same settings
 * (WORKGATE_CLOCK_START, _STEP, _TABLE, WORKGATE_RANDOM_SEED, read from the
 * client's environment):
 *
 *   RDTSC, RDTSCP      the clock sequence as a 1 GHz counter from the
 *   (arm64: CNTVCT)    monotonic origin; RDTSCP's TSC_AUX is 0
 *   RDRAND, RDSEED     32 bits of the entropy stream per helper call, carry
 *                      set (success)
 *   clock_gettime,     rewritten after the system call with the reading the
 *   gettimeofday, time shim would give; Valgrind hides the vDSO from the
 *                      client, so glibc's, Go's and a static program's
 *                      clock calls all arrive here as system calls
 *   getrandom          the bytes the kernel returned are replaced by the
 *                      stream's next ones
 *   /dev/urandom,      reads of a descriptor that names either device
 *   /dev/random        (opened, duplicated or inherited) likewise
 *   sysinfo            uptime, load averages and free memory fixed (the
 *                      machine's sizes stay): glibc's sysconf asks it
 *   /proc/uptime       opened, it is a file of the tool's whose text is a
 *                      reading of the pinned boot-time clock
 *   AT_RANDOM          the 16 bytes the kernel gives every program (glibc's
 *                      stack guard, Go's hash seeds), from a far part of the
 *                      stream that the program's own draws never reach
 *
 * One counter numbers the readings of every clock, as in the shim, so a
 * program that mixes them sees one timeline, and one that reads the clock
 * only through glibc sees the same values whether the shim or the tool pins
 * them. The TSC has a counter of its own (glibc's loader reads it before
 * main). The entropy stream is one per process; glibc draws 8 bytes of it at
 * startup (malloc's tcache key), which the shim never sees. Valgrind runs
 * one thread at a time, so plain counters are enough.
 *
 * CPUID: the synthetic CPU Valgrind shows says it has RDTSCP, but Valgrind's
 * decoder runs RDTSCP only where the host has it; Go's runtime uses it when
 * CPUID offers it and stops as an unrecognised instruction. The tool clears
 * that bit (leaf 0x80000001, EDX bit 27), pinned or not, so such programs
 * take their RDTSC path, which is pinned.
 *
 * What the tool meets and cannot pin is counted too, for workgate to decide
 * whether a count is deterministic by construction: more than one thread
 * (the schedule decides who reads what), signals delivered, system calls
 * that read time or the machine's state without a pinned answer (times,
 * getrusage, getcpu, timer and timerfd readings, adjtimex, clock_adjtime),
 * and reads of files that change as the machine runs. Which files those
 * are is decided by a rule, not by a list of the known ones: every file in
 * /proc and /sys is one, but for those this file names as fixed while a
 * program runs (MachineFileIsFixed: a process's own maps and limits,
 * kernel settings, the CPUs' and caches' layout, cgroup limits); so is
 * every character device but the random ones (pinned), /dev/null, /dev/zero,
 * /dev/full and terminals. /proc/stat, /proc/loadavg, /proc/self/stat,
 * /proc/meminfo, /proc/cpuinfo (its MHz), the real-time clock and hardware
 * random devices all fall under it. Both lists are written to the output
 * file (vgcount_main.c).
 */
// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "pinned_sequence.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#if defined(VGA_amd64)
#include "libvex_guest_amd64.h"
#endif

// The most WORKGATE_CLOCK_TABLE entries, as in the shim.
#define VGC_TABLE_MAX 1024
// AT_RANDOM's bytes come from this word of the stream on: 2^62 words in,
// out of reach of any program's own draws.
#define VGC_AT_RANDOM_WORD (1ULL << 62)
// Descriptors whose device is remembered; reads of higher ones ask fstat.
#define VGC_FD_CACHE 1024
// /dev/random is character device 1:8, /dev/urandom 1:9.
#define VGC_MEM_MAJOR 1
#define VGC_RANDOM_MINOR 8
#define VGC_URANDOM_MINOR 9
// Linux's numbers that Valgrind's kernel headers do not spell.
#define VGC_AT_NULL 0
#define VGC_AT_RANDOM 25
#define VGC_F_DUPFD_CLOEXEC 1030
#define VGC_S_IFMT 0170000
#define VGC_S_IFCHR 0020000
// /dev/null, /dev/zero and /dev/full (1:3, 1:5, 1:7), terminals (4, 5) and
// pseudo-terminals (136-143): devices whose reads say nothing of the machine.
#define VGC_NULL_MINOR 3
#define VGC_ZERO_MINOR 5
#define VGC_FULL_MINOR 7
#define VGC_TTY_MAJOR 4
#define VGC_TTYAUX_MAJOR 5
#define VGC_PTS_FIRST_MAJOR 136
#define VGC_PTS_LAST_MAJOR 143
// O_CLOEXEC and CLOCK_BOOTTIME, the same on amd64 and arm64.
#define VGC_O_CLOEXEC 02000000
#define VGC_CLOCK_BOOTTIME 7
// open(2) exists on amd64 only; arm64 has openat alone.
#if defined(__NR_open)
#define VGC_NR_OPEN __NR_open
#else
#define VGC_NR_OPEN (~0u)
#endif

// The core's fcntl, which the tool headers do not declare (the tool is
// linked with the core).
extern Int VG_(fcntl)(Int fd, Int cmd, Addr arg);

static Bool pin_enabled = True;
static Bool config_read = False;
static Long start_ns = WG_DEFAULT_START_NS;
static Long step_ns = WG_DEFAULT_STEP_NS;
static UInt table_len = 0;
static Long table_ns[VGC_TABLE_MAX];
static Long tail_ns = 0;
static ULong random_key = 0;

static ULong clock_readings = 0;   // the clock counter: readings handed out
static ULong tsc_readings = 0;     // the TSC's own
static ULong random_position = 0;  // bytes of the entropy stream handed out

static ULong pinned_counts[kVgcPinnedKinds];
static ULong unpinned_counts[kVgcUnpinnedKinds];

static const HChar* const pinned_names[kVgcPinnedKinds] = {
    "tsc", "rdrand", "rdseed", "clock", "getrandom", "random-device", "sysinfo", "uptime"};
static const HChar* const unpinned_names[kVgcUnpinnedKinds] = {
    "threads", "signals", "times", "getrusage", "getcpu", "timer-read", "adjtime", "machine-file"};

// What a descriptor reads, asked at its first read (Kind).
enum { kFdUnknown = 0, kFdRandom, kFdFixed, kFdMachine };
static UChar fd_kind[VGC_FD_CACHE];

// Stops the run with a message naming the variable: a misread setting
// would silently pin another clock than the suite asked for. Status 125,
// as the shim's.
static void Fail(const HChar* name, const HChar* value, const HChar* why) {
  VG_(umsg)("vgcount: cannot use %s=%s: %s\n", name, value, why);
  VG_(exit)(125);
}

static void ReadSeconds(const HChar* name, Long* out) {
  const HChar* value = VG_(getenv)(name);
  if (value == NULL || *value == '\0') return;
  int64_t ns = 0;
  if (wg_parse_seconds(value, value + VG_(strlen)(value), &ns) != 0) {
    Fail(name, value, "expected seconds as a non-negative decimal, like 1 or 0.25");
  }
  *out = ns;
}

static void ReadTable(void) {
  const HChar* name = "WORKGATE_CLOCK_TABLE";
  const HChar* value = VG_(getenv)(name);
  if (value == NULL || *value == '\0') return;
  for (const HChar* p = value;;) {
    const HChar* comma = VG_(strchr)(p, ',');
    const HChar* end = comma != NULL ? comma : p + VG_(strlen)(p);
    if (table_len == VGC_TABLE_MAX) Fail(name, value, "more than 1024 entries");
    int64_t ns = 0;
    if (wg_parse_seconds(p, end, &ns) != 0) {
      Fail(name, value, "expected comma-separated non-negative decimals");
    }
    table_ns[table_len++] = ns;
    if (comma == NULL) break;
    p = comma + 1;
  }
  // Reading n >= table_len goes on from the table's last entry by the step.
  tail_ns = table_ns[table_len - 1] - (Long)(table_len - 1) * step_ns;
}

// The client's environment is in place only once its image is made, so the
// settings are read at the first pinned reading, not at startup.
static void ReadConfig(void) {
  if (config_read) return;
  config_read = True;
  ReadSeconds("WORKGATE_CLOCK_START", &start_ns);
  ReadSeconds("WORKGATE_CLOCK_STEP", &step_ns);
  ReadTable();
  const HChar* seed = VG_(getenv)("WORKGATE_RANDOM_SEED");
  uint64_t key = 0;
  if (seed != NULL && wg_parse_seed(seed, &key) != 0) {
    Fail("WORKGATE_RANDOM_SEED", seed, "expected an unsigned decimal integer below 2^64");
  }
  random_key = key;
}

// Offset n of the clock sequence (nanoseconds since a clock's origin).
static Long OffsetAt(ULong n) {
  ReadConfig();
  if (n < table_len) return table_ns[n];
  return tail_ns + (Long)n * step_ns;
}

// The next clock reading's offset.
static Long NextOffset(void) { return OffsetAt(clock_readings++); }

// Copies the next `len` bytes of the entropy stream to client memory.
static void FillRandom(Addr buffer, SizeT len) {
  ReadConfig();
  UChar* out = (UChar*)buffer;
  for (SizeT i = 0; i < len; i++) out[i] = wg_stream_byte(random_key, random_position + i);
  random_position += len;
}

void vgc_pin_set_enabled(Bool enabled) { pin_enabled = enabled; }
Bool vgc_pin_enabled(void) { return pin_enabled; }

void vgc_pin_note_unpinned(VgcUnpinnedKind kind, ULong n) { unpinned_counts[kind] += n; }

// The words of a kind list: "name=N" for each nonzero count.
static void AppendCounts(HChar* line, SizeT size, const HChar* const* names, const ULong* counts,
                         Int kinds) {
  for (Int k = 0; k < kinds; k++) {
    if (counts[k] == 0) continue;
    const SizeT used = VG_(strlen)(line);
    VG_(snprintf)(line + used, size - used, " %s=%llu", names[k], counts[k]);
  }
}

void vgc_pin_describe(HChar* pinned, HChar* unpinned, SizeT size) {
  VG_(strcpy)(pinned, "pinned:");
  VG_(strcpy)(unpinned, "unpinned:");
  AppendCounts(pinned, size, pinned_names, pinned_counts, kVgcPinnedKinds);
  const ULong threads = vgc_account_threads();
  unpinned_counts[kVgcThreads] = threads > 1 ? threads : 0;
  AppendCounts(unpinned, size, unpinned_names, unpinned_counts, kVgcUnpinnedKinds);
}

void vgc_pin_forget_counts(void) {
  for (Int k = 0; k < kVgcPinnedKinds; k++) pinned_counts[k] = 0;
  for (Int k = 0; k < kVgcUnpinnedKinds; k++) unpinned_counts[k] = 0;
}

// ---- The helpers that stand in for the core's ------------------------------

// The TSC goes through the same sequence with a counter of its own: the
// dynamic loader reads it a dozen times before main, and those readings must
// not move the clock a program reads through glibc away from the shim's.
static ULong TscReading(void) {
  pinned_counts[kVgcTsc]++;
  return (ULong)(WG_MONOTONIC_ORIGIN_NS + OffsetAt(tsc_readings++));
}

static ULong PinnedTsc(void) { return TscReading(); }

// 32 bits of the stream, with the carry (success) in bit 32: the core's
// helpers return the host's RDRAND/RDSEED result this way.
static ULong PinnedRandom32(VgcPinnedKind kind) {
  pinned_counts[kind]++;
  UChar bytes[4];
  FillRandom((Addr)bytes, sizeof(bytes));
  const UInt value =
      (UInt)bytes[0] | (UInt)bytes[1] << 8 | (UInt)bytes[2] << 16 | (UInt)bytes[3] << 24;
  return (1ULL << 32) | (ULong)value;
}

static ULong PinnedRdrand(void) { return PinnedRandom32(kVgcRdrand); }
static ULong PinnedRdseed(void) { return PinnedRandom32(kVgcRdseed); }

#if defined(VGA_amd64)
static void PinnedRdtscp(VexGuestAMD64State* state) {
  const ULong tsc = TscReading();
  state->guest_RAX = tsc & 0xffffffffULL;
  state->guest_RDX = tsc >> 32;
  state->guest_RCX = 0;  // TSC_AUX: processor 0
}
#endif

// Replaces the callee of `d` when it is one of the core's helpers that read
// the host's time-stamp counter or random generator.
static void PinDirtyCall(IRDirty* d) {
  const HChar* name = d->cee->name;
  if (VG_(strcmp)(name, "amd64g_dirtyhelper_RDTSC") == 0 ||
      VG_(strcmp)(name, "arm64g_dirtyhelper_MRS_CNTVCT_EL0") == 0) {
    d->cee = mkIRCallee(0, "vgc_pinned_tsc", PinnedTsc);
  } else if (VG_(strcmp)(name, "amd64g_dirtyhelper_RDRAND") == 0) {
    d->cee = mkIRCallee(0, "vgc_pinned_rdrand", PinnedRdrand);
  } else if (VG_(strcmp)(name, "amd64g_dirtyhelper_RDSEED") == 0) {
    d->cee = mkIRCallee(0, "vgc_pinned_rdseed", PinnedRdseed);
#if defined(VGA_amd64)
  } else if (VG_(strcmp)(name, "amd64g_dirtyhelper_RDTSCP") == 0) {
    // Same argument (the guest state pointer) and declared effects.
    d->cee = mkIRCallee(0, "vgc_pinned_rdtscp", PinnedRdtscp);
#endif
  }
}

Bool vgc_pin_statement(IRSB* sb_out, IRStmt* st) {
  (void)sb_out;  // only amd64's CPUID adds statements of its own
  if (st->tag != Ist_Dirty) return False;
  IRDirty* d = st->Ist.Dirty.details;
#if defined(VGA_amd64)
  if (VG_(strncmp)(d->cee->name, "amd64g_dirtyhelper_CPUID", 24) == 0) {
    // The leaf as the instruction finds it, then the call, then EDX without
    // the RDTSCP bit where the leaf was 0x80000001.
    const Int rax = offsetof(VexGuestAMD64State, guest_RAX);
    const Int rdx = offsetof(VexGuestAMD64State, guest_RDX);
    IRTypeEnv* env = sb_out->tyenv;
    const IRTemp leaf = newIRTemp(env, Ity_I32);
    addStmtToIRSB(sb_out, IRStmt_WrTmp(leaf, IRExpr_Get(rax, Ity_I32)));
    addStmtToIRSB(sb_out, st);
    const IRTemp edx = newIRTemp(env, Ity_I64);
    addStmtToIRSB(sb_out, IRStmt_WrTmp(edx, IRExpr_Get(rdx, Ity_I64)));
    const IRTemp is_leaf = newIRTemp(env, Ity_I1);
    addStmtToIRSB(sb_out,
                  IRStmt_WrTmp(is_leaf, IRExpr_Binop(Iop_CmpEQ32, IRExpr_RdTmp(leaf),
                                                     IRExpr_Const(IRConst_U32(0x80000001)))));
    const IRTemp cleared = newIRTemp(env, Ity_I64);
    addStmtToIRSB(sb_out,
                  IRStmt_WrTmp(cleared, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(edx),
                                                     IRExpr_Const(IRConst_U64(~(1ULL << 27))))));
    // Flat IR: a Put takes an atom, so the choice goes through a temporary.
    const IRTemp chosen = newIRTemp(env, Ity_I64);
    addStmtToIRSB(sb_out,
                  IRStmt_WrTmp(chosen, IRExpr_ITE(IRExpr_RdTmp(is_leaf), IRExpr_RdTmp(cleared),
                                                  IRExpr_RdTmp(edx))));
    addStmtToIRSB(sb_out, IRStmt_Put(rdx, IRExpr_RdTmp(chosen)));
    return True;
  }
#endif
  if (pin_enabled) PinDirtyCall(d);
  return False;
}

// ---- System calls -----------------------------------------------------------

static void WriteTimespec(Addr at, Long ns) {
  struct vki_timespec* ts = (struct vki_timespec*)at;
  ts->tv_sec = ns / WG_NS_PER_SEC;
  ts->tv_nsec = ns % WG_NS_PER_SEC;
}

static Bool StartsWith(const HChar* s, const HChar* prefix) {
  return VG_(strncmp)(s, prefix, VG_(strlen)(prefix)) == 0;
}

static Bool EndsWith(const HChar* s, const HChar* suffix) {
  const SizeT n = VG_(strlen)(s), m = VG_(strlen)(suffix);
  return n >= m && VG_(strcmp)(s + n - m, suffix) == 0;
}

// Whether `name` is one of `names` (a NULL-ended list).
static Bool OneOf(const HChar* name, const HChar* const* names) {
  for (; *names != NULL; names++) {
    if (VG_(strcmp)(name, *names) == 0) return True;
  }
  return False;
}

// Skips "N/" (a number and a slash) at `*s`; False when there is none.
static Bool SkipNumber(const HChar** s) {
  const HChar* p = *s;
  while (*p >= '0' && *p <= '9') p++;
  if (p == *s || *p != '/') return False;
  *s = p + 1;
  return True;
}

// Whether a /proc or /sys file at `path` (its name as the kernel gives it
// for an open descriptor) holds the same text for as long as a program
// runs. Anything not named here changes, or might: the rule's default.
// vgcount_inputs.c asks it too (vgc_pin_machine_file_is_fixed).
static Bool MachineFileIsFixed(const HChar* path) {
  static const HChar* const process_files[] = {
      "cmdline",         "environ",   "auxv",    "exe",     "maps",        "mountinfo",
      "mounts",          "limits",    "cgroup",  "comm",    "personality", "oom_score_adj",
      "loginuid",        "sessionid", "uid_map", "gid_map", "setgroups",   "cpuset",
      "coredump_filter", NULL};
  static const HChar* const proc_files[] = {"/proc/version", "/proc/filesystems", "/proc/cmdline",
                                            NULL};
  static const HChar* const changing_settings[] = {"/proc/sys/kernel/ns_last_pid",
                                                   "/proc/sys/fs/file-nr",
                                                   "/proc/sys/fs/inode-nr",
                                                   "/proc/sys/fs/inode-state",
                                                   "/proc/sys/fs/dentry-state",
                                                   "/proc/sys/kernel/pty/nr",
                                                   NULL};
  static const HChar* const cpu_files[] = {"online",     "possible", "present",   "offline",
                                           "kernel_max", "isolated", "nohz_full", NULL};
  static const HChar* const node_files[] = {"cpulist", "cpumap", "distance", NULL};
  static const HChar* const cgroup_suffixes[] = {".max",    ".min",         ".low", ".high",
                                                 ".weight", ".weight.nice", NULL};
  static const HChar* const cgroup_files[] = {"cgroup.controllers",    "cgroup.subtree_control",
                                              "cgroup.type",           "cpuset.cpus.effective",
                                              "cpuset.mems.effective", NULL};
  if (StartsWith(path, "/proc/")) {
    const HChar* s = path + 6;
    if (SkipNumber(&s)) {
      // A process's (or a thread's: /proc/P/task/T/) files about itself.
      if (StartsWith(s, "task/")) {
        s += 5;
        if (!SkipNumber(&s)) return False;
      }
      return OneOf(s, process_files) || StartsWith(s, "ns/") || StartsWith(s, "attr/") ||
             StartsWith(s, "fd/") || StartsWith(s, "fdinfo/");
    }
    if (StartsWith(path, "/proc/sys/")) {
      return !StartsWith(path, "/proc/sys/kernel/random/") && !OneOf(path, changing_settings);
    }
    return OneOf(path, proc_files);
  }
  if (StartsWith(path, "/sys/devices/system/cpu/")) {
    const HChar* s = path + 24;
    if (OneOf(s, cpu_files)) return True;
    if (!StartsWith(s, "cpu")) return False;
    s += 3;
    if (!SkipNumber(&s)) return False;
    return StartsWith(s, "topology/") || StartsWith(s, "cache/") || VG_(strcmp)(s, "online") == 0;
  }
  if (StartsWith(path, "/sys/devices/system/node/")) {
    const HChar* s = path + 25;
    if (OneOf(s, cpu_files) || StartsWith(s, "has_")) return True;
    if (!StartsWith(s, "node")) return False;
    s += 4;
    return SkipNumber(&s) && OneOf(s, node_files);
  }
  if (StartsWith(path, "/sys/kernel/mm/transparent_hugepage/")) return True;
  if (StartsWith(path, "/sys/fs/cgroup/")) {
    const HChar* base = VG_(strrchr)(path, '/') + 1;
    if (OneOf(base, cgroup_files)) return True;
    for (const HChar* const* suffix = cgroup_suffixes; *suffix != NULL; suffix++) {
      if (EndsWith(base, *suffix)) return True;
    }
  }
  return False;
}

Bool vgc_pin_machine_file_is_fixed(const HChar* path) { return MachineFileIsFixed(path); }

// The name of what descriptor `fd` is open on, as /proc/self/fd gives it
// (the tool's own readlink: the process's /proc), or "" when none.
static void NameOf(Int fd, HChar* name, SizeT size) {
  HChar link[48];
  VG_(snprintf)(link, sizeof link, "/proc/self/fd/%d", fd);
  const SSizeT n = VG_(readlink)(link, name, size - 1);
  name[n > 0 ? n : 0] = '\0';
}

// What descriptor `fd` reads: a random device, a file or device whose text
// changes as the machine runs, or anything else (fixed, or the program's
// own making).
static Int Kind(Int fd) {
  if (fd < 0) return kFdFixed;
  if (fd < VGC_FD_CACHE && fd_kind[fd] != kFdUnknown) return fd_kind[fd];
  struct vg_stat st;
  Int kind = kFdFixed;
  if (VG_(fstat)(fd, &st) != 0) {
    kind = kFdFixed;
  } else if ((st.mode & VGC_S_IFMT) == VGC_S_IFCHR) {
    const ULong major = (st.rdev >> 8) & 0xfff,
                minor = (st.rdev & 0xff) | ((st.rdev >> 12) & ~0xffULL);
    const Bool mem = major == VGC_MEM_MAJOR;
    if (mem && (minor == VGC_RANDOM_MINOR || minor == VGC_URANDOM_MINOR)) {
      kind = kFdRandom;
    } else if ((mem &&
                (minor == VGC_NULL_MINOR || minor == VGC_ZERO_MINOR || minor == VGC_FULL_MINOR)) ||
               major == VGC_TTY_MAJOR || major == VGC_TTYAUX_MAJOR ||
               (major >= VGC_PTS_FIRST_MAJOR && major <= VGC_PTS_LAST_MAJOR)) {
      kind = kFdFixed;
    } else {
      kind = kFdMachine;
    }
  } else {
    HChar name[256];
    NameOf(fd, name, sizeof name);
    if ((StartsWith(name, "/proc/") || StartsWith(name, "/sys/")) && !MachineFileIsFixed(name)) {
      kind = kFdMachine;
    }
  }
  if (fd < VGC_FD_CACHE) fd_kind[fd] = (UChar)kind;
  return kind;
}

static Bool IsRandomDevice(Int fd) { return Kind(fd) == kFdRandom; }

// A read from `fd` of `n` bytes: counted when it met the machine's state.
static void NoteRead(Int fd, UWord n) {
  if (n > 0 && Kind(fd) == kFdMachine) unpinned_counts[kVgcMachineFile]++;
}

// Whether the path the program opened (its own memory, read with bounds)
// may name /proc/uptime: its name ends so. Only those descriptors are
// asked what they are (PinUptime).
static Bool MayBeUptime(Addr p) {
  HChar path[128];
  SizeT n = 0;
  for (; p != 0 && n + 1 < sizeof path; n++) {
    if (!VG_(am_is_valid_for_client)(p + n, 1, VKI_PROT_READ)) return False;
    path[n] = ((const HChar*)p)[n];
    if (path[n] == '\0') break;
  }
  path[n] = '\0';
  return EndsWith(path, "uptime");
}

// Puts, under descriptor `fd` (just opened on /proc/uptime), a file of the
// tool's whose text is the pinned boot-time clock's next reading: seconds
// since boot and (the same figure) idle seconds. `cloexec`: the program
// asked for O_CLOEXEC, which the replacement keeps. False, with `fd` as it
// was, when no such file can be made (the read is then an unpinned one).
static Bool PinUptime(Int fd, Bool cloexec) {
  HChar name[512];
  static ULong made = 0;
  VG_(snprintf)
  (name, sizeof name, "%s/vgcount-uptime-%d-%llu", VG_(tmpdir)(), VG_(getpid)(), made++);
  SysRes opened = VG_(open)(name, VKI_O_CREAT | VKI_O_EXCL | VKI_O_RDWR, 0600);
  if (sr_isError(opened)) return False;
  const Int file = (Int)sr_Res(opened);
  VG_(unlink)(name);
  ReadConfig();
  const Long ns = wg_origin_of_clock(VGC_CLOCK_BOOTTIME, start_ns) + NextOffset();
  HChar text[96];
  const ULong seconds = (ULong)(ns / WG_NS_PER_SEC),
              hundredths = (ULong)(ns % WG_NS_PER_SEC / (WG_NS_PER_SEC / 100));
  VG_(snprintf)
  (text, sizeof text, "%llu.%02llu %llu.%02llu\n", seconds, hundredths, seconds, hundredths);
  const Int length = (Int)VG_(strlen)(text);
  const Bool ok = VG_(write)(file, text, length) == length &&
                  VG_(lseek)(file, 0, VKI_SEEK_SET) == 0 && !sr_isError(VG_(dup2)(file, fd));
  VG_(close)(file);
  if (ok && cloexec) VG_(fcntl)(fd, VKI_F_SETFD, VKI_FD_CLOEXEC);
  if (ok && fd < VGC_FD_CACHE) fd_kind[fd] = kFdFixed;
  return ok;
}

static void Forget(Int fd) {
  if (fd >= 0 && fd < VGC_FD_CACHE) fd_kind[fd] = 0;
}

// The descriptor `to` now names what `from` names.
static void Duplicate(Int from, Int to) {
  if (to < 0 || to >= VGC_FD_CACHE) return;
  fd_kind[to] = 0;
  if (from >= 0 && from < VGC_FD_CACHE) fd_kind[to] = fd_kind[from];
}

// Replaces the `done` bytes a read put into the iovecs at `iov` (count
// `count`).
static void FillIovecs(Addr iov, ULong count, ULong done) {
  const struct vki_iovec* v = (const struct vki_iovec*)iov;
  for (ULong i = 0; i < count && done > 0; i++) {
    const ULong len = v[i].iov_len < done ? v[i].iov_len : done;
    FillRandom((Addr)v[i].iov_base, len);
    done -= len;
  }
}

void vgc_pin_post_syscall(ThreadId tid, UInt number, UWord* args, SysRes result) {
  (void)tid;  // only time(2), on amd64, writes a guest register
  if (sr_isError(result)) return;
  const UWord res = sr_Res(result);
  switch (number) {
#if defined(__NR_open)
    case __NR_open:
#endif
    case __NR_openat:
#if defined(__NR_openat2)
    case __NR_openat2:
#endif
    case __NR_close: {
      // A new or closed descriptor: what it reads is asked at its first read.
      Forget(number == __NR_close ? (Int)args[0] : (Int)res);
      if (number == __NR_close || !pin_enabled) return;
      const Bool at = number != VGC_NR_OPEN;
      const Addr path = at ? args[1] : args[0];
      // openat2's flags are in the struct open_how its third argument points at.
      UWord flags = number == __NR_openat ? args[2] : at ? 0 : args[1];
#if defined(__NR_openat2)
      if (number == __NR_openat2 &&
          VG_(am_is_valid_for_client)(args[2], sizeof(ULong), VKI_PROT_READ)) {
        flags = (UWord) * (const ULong*)args[2];
      }
#endif
      if (MayBeUptime(path)) {
        HChar name[64];
        NameOf((Int)res, name, sizeof name);
        if (VG_(strcmp)(name, "/proc/uptime") == 0) {
          if (PinUptime((Int)res, (flags & VGC_O_CLOEXEC) != 0)) {
            pinned_counts[kVgcUptime]++;
          }
        }
      }
      return;
    }
    case __NR_dup:
#if defined(__NR_dup2)
    case __NR_dup2:
#endif
    case __NR_dup3:
      Duplicate((Int)args[0], (Int)res);
      return;
    case __NR_fcntl:
      if (args[1] == VKI_F_DUPFD || args[1] == VGC_F_DUPFD_CLOEXEC)
        Duplicate((Int)args[0], (Int)res);
      return;
    case __NR_times:
      unpinned_counts[kVgcTimes]++;
      return;
    case __NR_getrusage:
      unpinned_counts[kVgcGetrusage]++;
      return;
    case __NR_getcpu:
      unpinned_counts[kVgcGetcpu]++;
      return;
    case __NR_timer_gettime:
    case __NR_timerfd_gettime:
      unpinned_counts[kVgcTimerRead]++;
      return;
#if defined(__NR_adjtimex)
    case __NR_adjtimex:
#endif
    case __NR_clock_adjtime:
      unpinned_counts[kVgcAdjtime]++;
      return;
    default:
      break;
  }
  // What a read met of the machine's changing state, pinned or not; the
  // data moved between descriptors by sendfile, splice and copy_file_range
  // is read from their source.
  switch (number) {
    case __NR_read:
    case __NR_pread64:
    case __NR_readv:
    case __NR_preadv:
#if defined(__NR_preadv2)
    case __NR_preadv2:
#endif
    case __NR_splice:
    case __NR_copy_file_range:
      NoteRead((Int)args[0], res);
      break;
    case __NR_sendfile:
      NoteRead((Int)args[1], res);
      break;
    default:
      break;
  }
  if (!pin_enabled) return;
  switch (number) {
    case __NR_clock_gettime: {
      ReadConfig();
      const Long origin = wg_origin_of_clock((Int)args[0], start_ns);
      if (origin < 0 || args[1] == 0) return;
      pinned_counts[kVgcClock]++;
      WriteTimespec(args[1], origin + NextOffset());
      return;
    }
    case __NR_gettimeofday:
      if (args[0] != 0) {
        pinned_counts[kVgcClock]++;
        const Long offset = NextOffset();
        const Long ns = start_ns + offset;
        struct vki_timeval* tv = (struct vki_timeval*)args[0];
        tv->tv_sec = ns / WG_NS_PER_SEC;
        tv->tv_usec = ns % WG_NS_PER_SEC / 1000;
      }
      return;
#if defined(__NR_time) && defined(VGA_amd64)
    case __NR_time: {
      pinned_counts[kVgcClock]++;
      const Long offset = NextOffset();
      const ULong seconds = (ULong)((start_ns + offset) / WG_NS_PER_SEC);
      if (args[0] != 0) *(vki_time_t*)args[0] = (vki_time_t)seconds;
      // The result is already in the guest's RAX (the core puts it there
      // before the tool's handler runs).
      VG_(set_shadow_regs_area)
      (tid, 0, offsetof(VexGuestAMD64State, guest_RAX), sizeof(seconds), (const UChar*)&seconds);
      return;
    }
#endif
    case __NR_sysinfo: {
      // glibc asks it for sysconf(_SC_PHYS_PAGES) (qsort does, on large
      // arrays): the machine's memory sizes stay, what moves between runs
      // is fixed. Uptime is the monotonic origin, without using a reading.
      struct vki_sysinfo* info = (struct vki_sysinfo*)args[0];
      pinned_counts[kVgcSysinfo]++;
      info->uptime = WG_MONOTONIC_ORIGIN_NS / WG_NS_PER_SEC;
      info->loads[0] = info->loads[1] = info->loads[2] = 0;
      info->freeram = info->totalram / 2;
      info->sharedram = 0;
      info->bufferram = 0;
      info->freeswap = info->totalswap;
      info->procs = 1;
      info->freehigh = info->totalhigh / 2;
      return;
    }
    case __NR_getrandom:
      pinned_counts[kVgcGetrandom]++;
      FillRandom(args[0], res);
      return;
    case __NR_read:
    case __NR_pread64:
      if (res > 0 && IsRandomDevice((Int)args[0])) {
        pinned_counts[kVgcRandomDevice]++;
        FillRandom(args[1], res);
      }
      return;
    case __NR_readv:
    case __NR_preadv:
#if defined(__NR_preadv2)
    case __NR_preadv2:
#endif
      if (res > 0 && IsRandomDevice((Int)args[0])) {
        pinned_counts[kVgcRandomDevice]++;
        FillIovecs(args[1], args[2], res);
      }
      return;
    default:
      return;
  }
}

// ---- The start of the program ----------------------------------------------

void vgc_pin_at_start(ThreadId tid) {
  static Bool done = False;
  if (done || !pin_enabled) return;
  done = True;
  // The initial stack: argc, argv[], NULL, envp[], NULL, then the auxiliary
  // vector's (type, value) pairs up to AT_NULL.
  const UWord* sp = (const UWord*)VG_(get_SP)(tid);
  if (sp == NULL) return;
  const UWord argc = sp[0];
  const UWord* p = sp + 1 + argc + 1;
  while (*p != 0) p++;  // the environment
  for (p++; p[0] != VGC_AT_NULL; p += 2) {
    if (p[0] == VGC_AT_RANDOM && p[1] != 0) {
      ReadConfig();
      UChar* bytes = (UChar*)p[1];
      for (Int i = 0; i < 16; i++) {
        bytes[i] = wg_stream_byte(random_key, VGC_AT_RANDOM_WORD * 8 + (ULong)i);
      }
    }
  }
}
