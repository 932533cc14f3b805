/* vgcount_requests.c: the program's client requests, and which of them make
 * its count untrustworthy.
 *
 * A client request is a few instructions that do nothing natively and ask
 * Valgrind or the tool for something under it. Some of them change what is
 * counted, and a candidate build can issue any of them:
 *
 *   - callgrind's requests (<valgrind/callgrind.h>), which vgcount answers
 *     as callgrind does. Without a region (--collect-atstart=yes) every one
 *     of them makes the run invalid: CALLGRIND_ZERO_STATS would drop the
 *     work before it, CALLGRIND_TOGGLE_COLLECT the work between two.
 *     With a region (--collect-atstart=no), CALLGRIND_TOGGLE_COLLECT is the
 *     marker's own request (<workgate/region.h>), and a thread may enter its
 *     region once: collection turned on again after it was turned off
 *     would leave the work between the two out. A signal handler goes on in
 *     the state of the code it interrupted (vgcount_account.c), and may not
 *     switch it: its switch is dropped when it returns. The others stay
 *     invalid.
 *   - the core's VALGRIND_NON_SIMD_CALL0..3, which run a function of the
 *     program's on the real CPU, where no tool sees its instructions, and
 *     VALGRIND_MONITOR_COMMAND, which changes Valgrind's own settings. The
 *     core serves both before any tool is asked, so vgcount looks at every
 *     request as the block that makes it ends (vgc_requests_instrument).
 *
 * Each makes the run invalid through the channel (vgc_channel_invalid) with
 * the request named. The rest (RUNNING_ON_VALGRIND, the memory checkers'
 * requests, stack registration, discarding translations) count nothing and
 * are left alone.
 */
// clang-format off: vgcount.h comes before Valgrind's headers (it says why).
#include "vgcount.h"
// clang-format on

#include "callgrind.h"  // callgrind's client request codes, which we answer
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_vki.h"
#include "valgrind.h"  // the core's request codes
#if defined(VGA_amd64)
#include "libvex_guest_amd64.h"
#elif defined(VGA_arm64)
#include "libvex_guest_arm64.h"
#endif

static Bool region_mode = False;

void vgc_requests_init(Bool collect_atstart) { region_mode = !collect_atstart; }

static const HChar* CallgrindRequestName(UWord code) {
  switch (code) {
    case VG_USERREQ__DUMP_STATS:
      return "CALLGRIND_DUMP_STATS";
    case VG_USERREQ__ZERO_STATS:
      return "CALLGRIND_ZERO_STATS";
    case VG_USERREQ__TOGGLE_COLLECT:
      return "CALLGRIND_TOGGLE_COLLECT";
    case VG_USERREQ__DUMP_STATS_AT:
      return "CALLGRIND_DUMP_STATS_AT";
    case VG_USERREQ__START_INSTRUMENTATION:
      return "CALLGRIND_START_INSTRUMENTATION";
    case VG_USERREQ__STOP_INSTRUMENTATION:
      return "CALLGRIND_STOP_INSTRUMENTATION";
    default:
      return NULL;
  }
}

Bool vgc_requests_handle(ThreadId tid, UWord* args, UWord* ret) {
  const HChar* name = CallgrindRequestName(args[0]);
  if (name == NULL) return False;
  if (args[0] == VG_USERREQ__TOGGLE_COLLECT && region_mode) {
    const VgcToggle toggle = vgc_account_toggle_collect(tid);
    if (toggle == kVgcToggleAgain) vgc_channel_invalid(kVgcMessageUncounted, "region-again");
    if (toggle == kVgcToggleInHandler) {
      vgc_channel_invalid(kVgcMessageUncounted, "region-in-handler");
    }
  } else {
    vgc_channel_invalid(kVgcMessageUncounted, name);
    // Answered all the same, as callgrind would: the figures of a run that
    // is not used need not be wrong too.
    if (args[0] == VG_USERREQ__TOGGLE_COLLECT) vgc_account_toggle_collect(tid);
    if (args[0] == VG_USERREQ__ZERO_STATS) vgc_account_zero(tid);
  }
  *ret = 0;
  return True;
}

// Called as a block that ends in a client request leaves, with the address
// of the request's words (the core reads them from the same register).
static VG_REGPARM(1) void CheckRequest(HWord words) {
  if (!VG_(am_is_valid_for_client)(words, sizeof(UWord), VKI_PROT_READ)) return;
  const UWord code = *(const UWord*)words;
  if (code >= VG_USERREQ__CLIENT_CALL0 && code <= VG_USERREQ__CLIENT_CALL3) {
    vgc_channel_invalid(kVgcMessageUncounted, "VALGRIND_NON_SIMD_CALL");
  } else if (code == VG_USERREQ__GDB_MONITOR_COMMAND) {
    vgc_channel_invalid(kVgcMessageUncounted, "VALGRIND_MONITOR_COMMAND");
  }
}

void vgc_requests_instrument(IRSB* sb_out) {
#if defined(VGA_amd64)
  const Int words = offsetof(VexGuestAMD64State, guest_RAX);
#elif defined(VGA_arm64)
  const Int words = offsetof(VexGuestARM64State, guest_X4);
#endif
  const IRTemp address = newIRTemp(sb_out->tyenv, Ity_I64);
  addStmtToIRSB(sb_out, IRStmt_WrTmp(address, IRExpr_Get(words, Ity_I64)));
  IRDirty* d = unsafeIRDirty_0_N(1, "vgcount_check_request", VG_(fnptr_to_fnentry)(&CheckRequest),
                                 mkIRExprVec_1(IRExpr_RdTmp(address)));
  addStmtToIRSB(sb_out, IRStmt_Dirty(d));
}
