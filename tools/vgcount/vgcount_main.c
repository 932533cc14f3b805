/* vgcount_main.c: tool registration, options, client requests, the report.
 *
 *   valgrind --tool=vgcount [--vgcount-out-file=vgcount.out.%p]
 *                           [--vgcount-profile-file=vgcount.profile.%p]
 *                           [--vgcount-channel-fd=N] [--vgcount-inputs=yes|no]
 *                           [--vgcount-sim=yes|no]
 *                           [--collect-atstart=yes|no] prog args...
 *
 * At exit it writes the output file (format in tools/vgcount/README.md),
 * the per-function profile when asked for one (both as messages on the
 * channel instead, when given one: vgcount_channel.c), and, unless -q, prints
 * "==PID== vgcount instructions: N" on stderr.
 */

// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

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
static const HChar* clo_profile_file = NULL;
static Bool clo_collect_atstart = True;
static Bool clo_pin = True;
static Int clo_channel_fd = -1;
static Bool clo_unroll = True;
static Bool clo_inputs = False;
static Bool clo_sim = False;
static Bool clo_calls = True;

static Bool ProcessCommandLineOption(const HChar* arg) {
  if VG_STR_CLO (arg, "--vgcount-out-file", clo_out_file) {
  } else if VG_STR_CLO (arg, "--vgcount-profile-file", clo_profile_file) {
  } else if VG_BOOL_CLO (arg, "--collect-atstart", clo_collect_atstart) {
  } else if VG_BOOL_CLO (arg, "--vgcount-pin", clo_pin) {
  } else if VG_INT_CLO (arg, "--vgcount-channel-fd", clo_channel_fd) {
  } else if VG_BOOL_CLO (arg, "--vgcount-unroll", clo_unroll) {
  } else if VG_BOOL_CLO (arg, "--vgcount-lines", vgc_option_lines) {
  } else if VG_BOOL_CLO (arg, "--vgcount-lines-by-address", vgc_option_lines_by_address) {
  } else if VG_BOOL_CLO (arg, "--vgcount-calls", clo_calls) {
  } else if VG_BOOL_CLO (arg, "--vgcount-inputs", clo_inputs) {
  } else if VG_BOOL_CLO (arg, "--vgcount-sim", clo_sim) {
  } else {
    return False;
  }
  return True;
}

static void PrintUsage(void) {
  VG_(printf)
  ("    --vgcount-out-file=<f>    write the count to <f> [vgcount.out.%%p];\n"
   "                              %%p is the pid, %%q{VAR} an env variable\n"
   "    --vgcount-profile-file=<f> also write the self cost of every function\n"
   "                              to <f>, in callgrind's format [none]\n"
   "    --collect-atstart=no|yes  count from the start; CALLGRIND_TOGGLE_COLLECT\n"
   "                              flips it per thread, as callgrind does [yes]\n"
   "    --vgcount-pin=yes|no      answer the TSC, RDRAND/RDSEED, the time and\n"
   "                              getrandom system calls and the random devices\n"
   "                              with workgate's pinned sequences [yes]\n"
   "    --vgcount-channel-fd=<n>  send the count and the profile as messages on\n"
   "                              the SOCK_SEQPACKET socket <n> instead of\n"
   "                              writing files (tools/vgcount/README.md)\n"
   "    --vgcount-inputs=no|yes   list in the report what each process read\n"
   "                              from the file system: files opened, mapped\n"
   "                              or executed, directories listed, paths\n"
   "                              looked up, with their state [no]\n"
   "    --vgcount-lines-by-address=no|yes  in the profile, give an instruction\n"
   "                              without a source line in an object by its\n"
   "                              address there, for workgate to name [no]\n"
   "    --vgcount-sim=no|yes      also simulate branch predictors and caches on\n"
   "                              vgcount's fixed model (README.md) and report\n"
   "                              Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi\n"
   "                              Bim, in the profile too [no]\n");
}

static void PrintDebugUsage(void) {
  VG_(printf)
  ("    --vgcount-unroll=yes|no   with a profile, repeat loops of one block\n"
   "                              in one translation (vgcount_unroll.c); the\n"
   "                              figures are the same either way [yes]\n"
   "    --vgcount-lines=yes|no    with a profile, count per source line; with\n"
   "                              no, every cost is on line 0 [yes]\n"
   "    --vgcount-calls=yes|no    with a profile, record call edges [yes]\n"
   "    (each only to measure what it costs: the figures stay exact)\n");
}

// Appends `text` to the growing string `*s` of `*used` bytes in `*size`.
static void Append(HChar** s, SizeT* used, SizeT* size, const HChar* text, Bool newline_as_space) {
  for (const HChar* p = text; *p != '\0'; p++) {
    if (*used + 2 > *size) {
      *size = *size * 2 + 64;
      *s = VG_(realloc)("vgcount.cmd", *s, *size);
    }
    (*s)[(*used)++] = (newline_as_space && *p == '\n') ? ' ' : *p;
  }
  (*s)[*used] = '\0';
}

// The client's command line on one line: a newline inside an argument would
// end the record early, so it is written as a space.
static HChar* CommandLine(void) {
  SizeT used = 0, size = 256;
  HChar* s = VG_(malloc)("vgcount.cmd", size);
  s[0] = '\0';
  Append(&s, &used, &size, VG_(args_the_exename) != NULL ? VG_(args_the_exename) : "", True);
  for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++) {
    Append(&s, &used, &size, " ", False);
    Append(&s, &used, &size, *(HChar**)VG_(indexXA)(VG_(args_for_client), i), True);
  }
  return s;
}

static void WriteAll(VgcOutput* out, Bool* ok, const HChar* text) {
  *ok = *ok && vgc_output_write(out, text, VG_(strlen)(text));
}

static void WriteReport(const HChar* cmd, ULong instructions) {
  VgcOutput out;
  if (!vgc_output_open(&out, kVgcOutputCount, "--vgcount-out-file", clo_out_file)) return;
  Bool ok = True;
  HChar line[128];
  VG_(snprintf)
  (line, sizeof(line), "version: 2\npid: %d\nppid: %d\ncmd: ", VG_(getpid)(), vgc_parent_pid());
  WriteAll(&out, &ok, line);
  WriteAll(&out, &ok, cmd);
  VG_(snprintf)
  (line, sizeof(line), "\ninstructions: %llu\nthreads: %llu\n", instructions,
   vgc_account_threads());
  WriteAll(&out, &ok, line);
  if (vgc_sim_enabled()) {
    ULong totals[VGC_SIM_EVENTS];
    vgc_sim_totals(totals);
    WriteAll(&out, &ok, "simulated:");
    for (Int e = 0; e < VGC_SIM_EVENTS; e++) {
      VG_(snprintf)(line, sizeof(line), " %s=%llu", vgc_sim_event_names[e], totals[e]);
      WriteAll(&out, &ok, line);
    }
    WriteAll(&out, &ok, "\n");
  }
  HChar pinned[256], unpinned[256];
  vgc_pin_describe(pinned, unpinned, sizeof(pinned));
  WriteAll(&out, &ok, pinned);
  WriteAll(&out, &ok, "\n");
  WriteAll(&out, &ok, unpinned);
  WriteAll(&out, &ok, "\n");
  // What made the count untrustworthy, for a reader of the file (on the
  // channel, workgate had each at once).
  for (Int i = 0; i < vgc_channel_invalid_count(); i++) {
    WriteAll(&out, &ok, "invalid: ");
    WriteAll(&out, &ok, vgc_channel_invalid_reason(i));
    WriteAll(&out, &ok, "\n");
  }
  // What it read ("input:" lines), last: the one part that can be long.
  ok = ok && vgc_inputs_write(&out);
  vgc_output_close(&out, ok);
}

// Sends (or writes) this process's outputs so far; returns the count.
static ULong SendOutputs(void) {
  const ULong instructions = vgc_account_finish();
  HChar* cmd = CommandLine();
  // The profile first: a report without its profile is a failed run to
  // workgate, a profile without its report is no count at all.
  if (clo_profile_file != NULL) vgc_profile_write(clo_profile_file, cmd, instructions);
  WriteReport(cmd, instructions);
  VG_(free)(cmd);
  return instructions;
}

void vgc_send_part_before_exec(const HChar* path) {
  // Valgrind starts the exec'd program afresh, without this process's
  // figures: they go out now, as a part, on the channel. Files cannot keep
  // them (the next program's output of the same pid replaces them).
  if (!vgc_channel_active()) return;
  SendOutputs();
  vgc_channel_exec(path);
  vgc_account_restart_after_part();
}

static void Finish(Int exit_code) {
  (void)exit_code;
  const ULong instructions = SendOutputs();
  if (VG_(clo_verbosity) > 0) VG_(umsg)("vgcount instructions: %llu\n", instructions);
  if (VG_(clo_verbosity) > 1) {
    VG_(umsg)
    ("vgcount loops unrolled: %llu blocks, %llu copies\n", vgc_unrolled_blocks,
     vgc_unrolled_copies);
  }
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
  vgc_process_start();
  // Before the program runs a single instruction: the channel must be out
  // of its reach from the start.
  if (clo_channel_fd >= 0 && !vgc_channel_open(clo_channel_fd)) {
    VG_(fmsg_bad_option)("--vgcount-channel-fd", "vgcount cannot use the channel it was given\n");
  }
  if (clo_profile_file != NULL) {
    vgc_profile_enable();
    if (clo_calls) vgc_calls_init();
  }
  if (clo_sim) vgc_sim_enable();
  vgc_pin_set_enabled(clo_pin);
  vgc_inputs_set_enabled(clo_inputs);
  vgc_unroll_set_enabled(clo_unroll);
  vgc_account_init(clo_collect_atstart);
  vgc_requests_init(clo_collect_atstart);
}

// The core discarded a translation (vgcount.h): callgrind registers for
// the same reason (its basic block information, callgrind/bb.c).
static void DiscardSuperblock(Addr entry, VexGuestExtents code) {
  vgc_context_forget_code(entry, &code);
  vgc_calls_forget_code(entry);
  vgc_sim_forget_code(&code);
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
  VG_(needs_client_requests)(vgc_requests_handle);
  VG_(needs_superblock_discards)(DiscardSuperblock);
  vgc_account_track_events();
}

VG_DETERMINE_INTERFACE_VERSION(PreCommandLineInit)
