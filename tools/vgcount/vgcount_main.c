/* vgcount_main.c: tool registration, options, client requests, the report.
 *
 *   valgrind --tool=vgcount [--vgcount-out-file=vgcount.out.%p]
 *                           [--collect-atstart=yes|no] prog args...
 *
 * At exit it writes the output file (format in tools/vgcount/README.md) and,
 * unless -q, prints "==PID== vgcount instructions: N" on stderr.
 */
#include "vgcount.h"

#include "callgrind.h"  // callgrind's client request codes, which we answer
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

static const HChar* clo_out_file = "vgcount.out.%p";
static Bool clo_collect_atstart = True;

static Bool ProcessCommandLineOption(const HChar* arg) {
  if VG_STR_CLO (arg, "--vgcount-out-file", clo_out_file) {
  } else if VG_BOOL_CLO (arg, "--collect-atstart", clo_collect_atstart) {
  } else {
    return False;
  }
  return True;
}

static void PrintUsage(void) {
  VG_(printf)(
      "    --vgcount-out-file=<f>    write the count to <f> [vgcount.out.%%p];\n"
      "                              %%p is the pid, %%q{VAR} an env variable\n"
      "    --collect-atstart=no|yes  count from the start; CALLGRIND_TOGGLE_COLLECT\n"
      "                              flips it per thread, as callgrind does [yes]\n");
}

static void PrintDebugUsage(void) { VG_(printf)("    (none)\n"); }

// Callgrind's requests that change what is counted. Its others (dumps,
// instrumentation on/off) are refused, so Valgrind warns instead of the
// figures silently meaning something else.
static Bool HandleClientRequest(ThreadId tid, UWord* args, UWord* ret) {
  if (!VG_IS_TOOL_USERREQ('C', 'T', args[0])) return False;
  switch (args[0]) {
    case VG_USERREQ__TOGGLE_COLLECT:
      vgc_account_toggle_collect(tid);
      break;
    case VG_USERREQ__ZERO_STATS:
      vgc_account_zero(tid);
      break;
    default:
      return False;
  }
  *ret = 0;
  return True;
}

static void WriteAll(Int fd, const HChar* text) {
  SizeT left = VG_(strlen)(text);
  while (left > 0) {
    Int written = VG_(write)(fd, text, (Int)left);
    if (written <= 0) return;
    text += written;
    left -= (SizeT)written;
  }
}

// One argument of the command line; a newline inside it would end the
// record early, so it is written as a space.
static void WriteArgument(Int fd, const HChar* arg) {
  HChar chunk[256];
  Int used = 0;
  for (const HChar* p = arg; *p != '\0'; p++) {
    chunk[used++] = (*p == '\n') ? ' ' : *p;
    if (used == (Int)sizeof(chunk) - 1) {
      chunk[used] = '\0';
      WriteAll(fd, chunk);
      used = 0;
    }
  }
  chunk[used] = '\0';
  WriteAll(fd, chunk);
}

static void WriteReport(ULong instructions) {
  HChar* path = VG_(expand_file_name)("--vgcount-out-file", clo_out_file);
  SysRes opened = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
                            VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
  if (sr_isError(opened)) {
    // Even under -q: a missing report must not go unexplained.
    VG_(message)(Vg_UserMsg, "vgcount: cannot write %s\n", path);
    VG_(free)(path);
    return;
  }
  Int fd = (Int)sr_Res(opened);
  HChar line[128];
  VG_(snprintf)(line, sizeof(line), "version: 1\npid: %d\nppid: %d\ncmd: ", VG_(getpid)(),
                VG_(getppid)());
  WriteAll(fd, line);
  WriteArgument(fd, VG_(args_the_exename) != NULL ? VG_(args_the_exename) : "");
  for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++) {
    WriteAll(fd, " ");
    WriteArgument(fd, *(HChar**)VG_(indexXA)(VG_(args_for_client), i));
  }
  VG_(snprintf)(line, sizeof(line), "\ninstructions: %llu\nthreads: %llu\n", instructions,
                vgc_account_threads());
  WriteAll(fd, line);
  VG_(close)(fd);
  VG_(free)(path);
}

static void Finish(Int exit_code) {
  (void)exit_code;
  ULong instructions = vgc_account_finish();
  WriteReport(instructions);
  if (VG_(clo_verbosity) > 0) VG_(umsg)("vgcount instructions: %llu\n", instructions);
}

static void PostCommandLineInit(void) {
  // Same block structure as callgrind (see vgcount_instrument.c). The user
  // cannot turn chasing back on: the figures would then differ.
  if (VG_(clo_vex_control).guest_chase) {
    if (VG_(clo_verbosity) > 0) {
      VG_(umsg)("vgcount only works with --vex-guest-chase=no: resetting it to 'no'\n");
    }
    VG_(clo_vex_control).guest_chase = False;
  }
  vgc_account_init(clo_collect_atstart);
}

static void PreCommandLineInit(void) {
  VG_(details_name)("vgcount");
  VG_(details_version)(NULL);
  VG_(details_description)("workgate's guest instruction counter");
  VG_(details_copyright_author)("Copyright (C) the workgate authors, GNU GPL'd.");
  VG_(details_bug_reports_to)("the workgate issue tracker");
  // Counting code is a few bytes per exit, like --tool=none's blocks.
  VG_(details_avg_translation_sizeB)(200);

  VG_(clo_vex_control).guest_chase = False;
  // Only SP needs to be exact at memory accesses: we never look at guest
  // registers mid-block. Callgrind makes the same choice; overridable.
  VG_(clo_vex_control).iropt_register_updates_default = VG_(clo_px_file_backed) =
      VexRegUpdSpAtMemAccess;

  VG_(basic_tool_funcs)(PostCommandLineInit, vgc_instrument, Finish);
  VG_(needs_command_line_options)(ProcessCommandLineOption, PrintUsage, PrintDebugUsage);
  VG_(needs_client_requests)(HandleClientRequest);
  vgc_account_track_events();
}

VG_DETERMINE_INTERFACE_VERSION(PreCommandLineInit)
