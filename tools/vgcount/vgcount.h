/* vgcount: a Valgrind tool that counts executed guest instructions the way
 * callgrind counts Ir, at close to the cost of --tool=none.
 *
 * The tool is three parts:
 *   vgcount_instrument.c  inline IR that keeps a 64-bit counter per thread up
 *                         to date at every superblock exit (no helper calls);
 *   vgcount_account.c     turns those raw counters into the collected total:
 *                         callgrind's per-thread collect state, its
 *                         TOGGLE_COLLECT / ZERO_STATS requests, signals, fork;
 *   vgcount_main.c        tool registration, options, the output file.
 */
#ifndef WORKGATE_TOOLS_VGCOUNT_VGCOUNT_H_
#define WORKGATE_TOOLS_VGCOUNT_VGCOUNT_H_

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/// The raw counter of thread `tid`: guest instructions it has executed,
/// whatever the collect state, kept by generated code in the thread's shadow
/// state. Read it only between blocks. A new thread starts from its
/// creator's figure (Valgrind copies the shadow state at clone), and the
/// return from a signal handler puts back the figure of the moment the
/// signal came (Valgrind restores the shadow state from the signal frame).
ULong vgc_thread_instructions(ThreadId tid);

/// Instructions of the superblock that ended in the client request now being
/// served: generated code stores it just before such a block's final exit.
extern ULong vgc_clreq_block_instructions;

/// Instruments one superblock (the tool's `instrument` callback).
IRSB* vgc_instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                     const VexGuestExtents* extents, const VexArchInfo* arch_info,
                     IRType guest_word_type, IRType host_word_type);

/// Sets up the per-thread collect state; call once in post_clo_init.
void vgc_account_init(Bool collect_atstart);

/// Registers the scheduler, thread and signal callbacks with the core.
void vgc_account_track_events(void);

/// Flips the collect state of thread `tid` (CALLGRIND_TOGGLE_COLLECT).
void vgc_account_toggle_collect(ThreadId tid);

/// Discards everything collected so far (CALLGRIND_ZERO_STATS).
void vgc_account_zero(ThreadId tid);

/// Closes the running interval and returns the collected instruction total.
ULong vgc_account_finish(void);

/// Number of guest threads this process has had (1 + threads created).
ULong vgc_account_threads(void);

#endif  // WORKGATE_TOOLS_VGCOUNT_VGCOUNT_H_
