/* vgcount: a Valgrind tool that counts executed guest instructions the way
 * callgrind counts Ir, at close to the cost of --tool=none, and, when asked,
 * records where they went (per-function and per-line self cost) in the same
 * run.
 *
 * The tool is fifteen parts:
 *   vgcount_instrument.c  inline IR that keeps a 64-bit counter per thread up
 *                         to date at every superblock exit (no helper calls),
 *                         and, when profiling, places the code of the three
 *                         parts below in each block (vgcount_ir.h);
 *   vgcount_context.c     the generated code that hands the instructions
 *                         counted since the last hand-over to the function
 *                         whose context they ran in;
 *   vgcount_line_counters.c  the generated code of the line counters;
 *   vgcount_call_stack.c  the generated code of the call stack's common
 *                         pushes and pops;
 *   vgcount_account.c     callgrind's per-thread collect state, its
 *                         TOGGLE_COLLECT / ZERO_STATS requests, signals, fork:
 *                         when counted instructions are collected, and into
 *                         which function;
 *   vgcount_profile.c     the functions, named as callgrind names them, and
 *                         the profile written in callgrind's format;
 *   vgcount_lines.c       per-block execution and side-exit counters, turned
 *                         into self cost per source line;
 *   vgcount_unroll.c      loops of one block repeated in one translation,
 *                         which profiling pays for once per block run;
 *   vgcount_calls.c       the call stack callgrind keeps, for call edges and
 *                         their inclusive cost;
 *   vgcount_pin.c         time and entropy pinned inside the counter (TSC,
 *                         RDRAND, time and getrandom system calls, the
 *                         random devices), and what the run met unpinned;
 *   vgcount_requests.c    the program's client requests: callgrind's, and
 *                         those that would hide or move work;
 *   vgcount_sim.c         simulated branch predictors and caches, beside the
 *                         count (--vgcount-sim=yes): their model, and the
 *                         helper calls that feed it;
 *   vgcount_inputs.c      what the program read from the file system, per
 *                         process, for workgate's result store
 *                         (--vgcount-inputs=yes);
 *   vgcount_channel.c     the outputs, and the channel that carries them to
 *                         workgate out of the program's reach;
 *   vgcount_main.c        tool registration, options, the report file.
 *
 * Per thread, vgcount keeps fourteen words in the first shadow guest state
 * (the area beside the guest registers that Valgrind reserves for tools; on
 * Linux the core only zeroes it, copies it to a new thread and saves and
 * restores it around a signal handler):
 *   VGC_SHADOW_RAW      instructions the thread executed, whatever the
 *                       collect state (generated code, at every exit);
 *   VGC_SHADOW_SEEN     the raw figure up to which they were handed over;
 *   VGC_SHADOW_CONTEXT  the VgcFunction they go to (callgrind's context);
 *   VGC_SHADOW_SLOT     the byte offset in that VgcFunction of the counter
 *                       they go to: ir[0] while the thread collects, ir[1]
 *                       while not;
 *   VGC_SHADOW_CALLED   1 from a call until the next block that decides a
 *                       context (vgcount_context.c), else 0;
 *   VGC_SHADOW_CONTEXT_OBJECT  the object_id of the context's function;
 *   VGC_SHADOW_STACK    the thread's return stack, for calls made from code
 *                       without a symbol (vgcount_context.c);
 *   VGC_SHADOW_DEPTH    the number of entries pushed on it;
 *   VGC_SHADOW_SKIP_TO  the counter a PLT stub's instructions go to: the
 *                       skipped counter of the line slot of the block that
 *                       last called or jumped into the PLT (vgcount_lines.c);
 *   VGC_SHADOW_PUSHED_FOR  the target of the last call or return, whose
 *                       block the call stack has seen to (0 once a block
 *                       where a function starts ran);
 *   VGC_SHADOW_SITE     the VgcCallInfo of the direct jump to where a
 *                       function starts that was taken since the last such
 *                       start, or 0 (vgcount_calls.c);
 *   VGC_SHADOW_CALLS    the thread's VgcCallStack;
 *   VGC_SHADOW_KEY      CONTEXT + SLOT: the address of the counter the
 *                       thread's instructions go to, kept with them so that
 *                       a block's line counters (vgcount_lines.c) check it
 *                       with one load;
 *   VGC_SHADOW_LINE_BASE  vgc_lines_base(), the same for every thread: the
 *                       register a block addresses its line counters from.
 */
#ifndef WORKGATE_TOOLS_VGCOUNT_VGCOUNT_H_
#define WORKGATE_TOOLS_VGCOUNT_VGCOUNT_H_

// Valgrind's headers come in through -I, not -isystem (CMakeLists.txt here),
// and this header comes first in every source: GCC says nothing about a call
// that a system header's macro expands to (VG_(f) is one), so only this way
// does a call to something the tool headers do not declare fail on GCC 12 as
// it does on GCC 14 (-Werror=implicit-function-declaration). The one warning
// the headers themselves give is an unused parameter of an inline function
// (sr_EQ's sysno, used on MIPS only).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "pub_tool_basics.h"
#pragma GCC diagnostic pop
#include "pub_tool_tooliface.h"

#define VGC_SHADOW_RAW 0
#define VGC_SHADOW_SEEN 8
#define VGC_SHADOW_CONTEXT 16
#define VGC_SHADOW_SLOT 24
#define VGC_SHADOW_CALLED 32
#define VGC_SHADOW_CONTEXT_OBJECT 40
#define VGC_SHADOW_STACK 48
#define VGC_SHADOW_DEPTH 56
#define VGC_SHADOW_SKIP_TO 64
#define VGC_SHADOW_PUSHED_FOR 72
#define VGC_SHADOW_SITE 80
#define VGC_SHADOW_CALLS 88
#define VGC_SHADOW_KEY 96
#define VGC_SHADOW_LINE_BASE 104

/// Entries of a thread's return stack (vgcount_context.c): a power of 2,
/// each VGC_RETURN_ENTRY_BYTES long.
#define VGC_RETURN_STACK_ENTRIES 256
#define VGC_RETURN_ENTRY_BYTES 32

/// A function, or without profiling the whole program as one. ir[0] holds
/// its collected instructions, ir[1] those executed while not collecting
/// (thrown away); generated code adds to the one at the thread's slot word.
/// Aligned to 16 bytes, with ir at offset 16, so that the address of either
/// counter names the function and which counter it is (vgcount_sim.c).
typedef struct __attribute__((aligned(16))) VgcFunction {
  // VgHashNode's layout: the table's chain and key come first.
  struct VgcFunction* chain;
  UWord key;  // hash of object and name
  ULong ir[2];
  const HChar* object;
  UWord object_id;  // the same for every function of one object, from 1
  const HChar* name;
  UInt id;                   // its number in the written file, 1-based
  struct VgcFunction* next;  // every function, newest first
  // Its source file as callgrind takes it (that of the first address it
  // was met at), for its instructions without line information
  // (vgcount_lines.c); set when profiling.
  UInt file;
  // The profile writer's mark: it makes calls or has simulated events, so
  // it is written even without a self cost.
  Bool to_write;
  Bool pop_on_jump;  // ld.so's lazy binding resolver (vgcount_calls.c)
  // Entered by a jump taken for a call: a return from it may leave two
  // frames at once, which its return blocks translated from then on pop
  // inline (vgcount_call_stack.c's PopReturn).
  Bool jump_entered;
} VgcFunction;

/// Reads and writes one word of thread `tid`'s shadow state.
ULong vgc_shadow_get(ThreadId tid, Int offset);
void vgc_shadow_set(ThreadId tid, Int offset, ULong value);

/// Instructions of the superblock that ended in the client request now being
/// served: generated code stores it just before such a block's final exit.
extern ULong vgc_clreq_block_instructions;

/// Instruments one superblock (the tool's `instrument` callback).
IRSB* vgc_instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                     const VexGuestExtents* extents, const VexArchInfo* arch_info,
                     IRType guest_word_type, IRType host_word_type);

/// The core discarded the translation it made for guest address `entry` of
/// the code in `code`: the code was unmapped or changed (a library unloaded,
/// code written again in place), or the translation was evicted to make
/// room. What each part keeps by guest address about that code goes, so
/// that other code mapped there later is not taken for it (the tool's
/// superblock-discard callback, vgcount_main.c). Translations made from
/// then on look everything up again.
void vgc_context_forget_code(Addr entry, const VexGuestExtents* code);
void vgc_calls_forget_code(Addr entry);
void vgc_sim_forget_code(const VexGuestExtents* code);

/// A profiled loop's block (one that jumps back to `start`, its first
/// instruction) as several iterations to one translation, or NULL where it
/// is no such loop or too long to repeat (vgcount_unroll.c). Only for
/// blocks that decide nothing about the context.
IRSB* vgc_unroll_loop(const IRSB* sb, Addr start);
/// --vgcount-unroll (a debugging option: the figures are the same).
void vgc_unroll_set_enabled(Bool enabled);
/// Loop blocks unrolled so far, and their copies in all (shown at -v -v).
extern ULong vgc_unrolled_blocks, vgc_unrolled_copies;
/// A debugging option (--help-debug) that leaves the line counters out
/// (every cost then on line 0), to measure what they cost
/// (ci/bench-vgcount's BENCH_VARIANTS). The figures it leaves are exact.
extern Bool vgc_option_lines;
/// --vgcount-lines-by-address: an instruction whose line Valgrind's debug
/// information does not give, in an object it knows, is written by its
/// address in that object, for workgate to name after the run from a debug
/// file Valgrind was not shown (vgcount_lines.c says how).
extern Bool vgc_option_lines_by_address;

/// Simulated events (vgcount_sim.c), in callgrind's order and by its names:
/// Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim.
#define VGC_SIM_EVENTS 12
extern const HChar* const vgc_sim_event_names[VGC_SIM_EVENTS];
/// Turns the simulation on; call in post_clo_init, before the first block.
void vgc_sim_enable(void);
Bool vgc_sim_enabled(void);
/// `sb_in` with the simulation's helper calls, for vgc_instrument to count
/// (the counting code's own memory accesses are not the program's).
IRSB* vgc_sim_instrument(IRSB* sb_in, const VexGuestLayout* layout);
/// Every figure to zero (CALLGRIND_ZERO_STATS, fork, after an exec's part);
/// the model's state goes on.
void vgc_sim_zero(void);
/// The collected events of the process so far.
void vgc_sim_totals(ULong totals[VGC_SIM_EVENTS]);
/// One line's collected events under one function.
typedef struct {
  VgcFunction* function;
  UInt file;  // vgc_lines_file_name
  UInt line;
  ULong events[VGC_SIM_EVENTS];
} VgcSimLineCost;
/// Every line with collected events, sorted as vgc_lines_collect sorts, in
/// a block the caller frees (VG_(free)), or NULL; `*count` entries.
VgcSimLineCost* vgc_sim_collect(UInt* count);

/// Sets up the per-thread collect state; call once in post_clo_init.
void vgc_account_init(Bool collect_atstart);

/// Registers the scheduler, thread and signal callbacks with the core.
void vgc_account_track_events(void);

/// Hands thread `tid`'s instructions up to raw figure `raw` over to its
/// context, then makes `next` the context (a call seen by a helper).
void vgc_account_switch_context(ThreadId tid, ULong raw, VgcFunction* next);

/// Flips the collect state of thread `tid` (CALLGRIND_TOGGLE_COLLECT), and
/// says whether that hid work (vgcount_requests.c): collection turned on in
/// a thread that had turned it on before (a region entered again), or
/// switched inside a signal handler.
typedef enum { kVgcToggleOk, kVgcToggleAgain, kVgcToggleInHandler } VgcToggle;
VgcToggle vgc_account_toggle_collect(ThreadId tid);

/// Discards everything collected so far (CALLGRIND_ZERO_STATS).
void vgc_account_zero(ThreadId tid);

/// Hands every live thread's last instructions over and returns the
/// collected total: the sum of every function's ir[0].
ULong vgc_account_finish(void);

/// Number of guest threads this process has had (1 + threads created).
ULong vgc_account_threads(void);

/// After the outputs of a program that execs were sent: every figure
/// starts again from zero, as in a forked child, for the next part (the
/// same program, when the exec fails).
void vgc_account_restart_after_part(void);

/// Before the program's exec of `path`: its outputs so far go out as a
/// part of this process's (vgcount_main.c).
void vgc_send_part_before_exec(const HChar* path);

/// The client requests (vgcount_requests.c): callgrind's, answered, and
/// those that make a count untrustworthy. `collect_atstart` False: the
/// program marks a region.
void vgc_requests_init(Bool collect_atstart);
Bool vgc_requests_handle(ThreadId tid, UWord* args, UWord* ret);
/// Adds the check of the request a block ends in to `sb_out`, before its
/// final exit.
void vgc_requests_instrument(IRSB* sb_out);

/// Turns on per-function recording; call in post_clo_init, before the first
/// block is made. Without it every instruction goes to one function.
void vgc_profile_enable(void);
Bool vgc_profile_enabled(void);

/// The function a new thread's instructions go to until its first block
/// that sets a context (and the only one without profiling).
VgcFunction* vgc_profile_start_function(void);

/// The function of code at guest address `addr`, named as callgrind names
/// it; `is_entry` says whether `addr` is where a named function starts,
/// `is_plt` whether it lies in a PLT section.
VgcFunction* vgc_function_of(Addr addr, Bool* is_entry, Bool* is_plt);

/// Every function, newest first; vgc_functions_zero sets all counters to 0.
VgcFunction* vgc_functions(void);
void vgc_functions_zero(void);

/// Writes the per-function self costs in callgrind's file format to the
/// expansion of `path_template` (%p, %q{VAR}), with `cmd` as its command
/// line and `total` on its summary: and totals: lines. False when it cannot
/// be written (Valgrind's message says why).
Bool vgc_profile_write(const HChar* path_template, const HChar* cmd, ULong total);

/// Names interned with a number each, from 0, kept for the whole run (the
/// objects of functions, source files; vgcount_profile.c).
typedef struct VgcNames VgcNames;
VgcNames* vgc_names_new(const HChar* what);
/// The number of `name`, which is copied the first time.
UInt vgc_names_intern(VgcNames* names, const HChar* name);
const HChar* vgc_names_get(const VgcNames* names, UInt number);
UInt vgc_names_count(const VgcNames* names);

/// A translation's line counters (vgcount_lines.c).
typedef struct VgcLineSlot VgcLineSlot;

/// Makes the line counters of a block of `instructions` instructions at
/// `addrs`, instruction i lying in segment `segment_of[i]` (0-based, not
/// decreasing) of `segments`: segment k follows the block's k-th counted
/// side exit. `exit_addr` is the block's last instruction, where the PLT
/// stubs it calls or jumps into are charged. NULL when no instruction has
/// line information: such a block counts nothing.
VgcLineSlot* vgc_lines_new_slot(const Addr* addrs, const UInt* segment_of, UInt instructions,
                                UInt segments, Addr exit_addr);
/// The counter of `slot` that the PLT stubs its block reaches add to.
ULong* vgc_lines_skipped_counter(VgcLineSlot* slot);
/// Where PLT stubs reached before any block set VGC_SHADOW_SKIP_TO add to
/// (a thread's first block is never one): counted under no line.
extern ULong vgc_lines_orphan_skipped;
/// The source file number of the code at `addr` (callgrind's file for a
/// function first met there).
UInt vgc_lines_file_of(Addr addr);
/// The address line slots are reached from: generated code loads it from
/// VGC_SHADOW_LINE_BASE and addresses a slot's words by their distance from
/// it, where that fits in 32 bits: shorter code than a 10-byte absolute
/// address at every access, which on a block of a few instructions was most
/// of what profiling added to it.
HWord vgc_lines_base(void);
/// Where generated code finds a slot's key and its k-th counter.
#define VGC_LINE_SLOT_KEY_OFFSET 0
#define VGC_LINE_SLOT_COUNTS_OFFSET 40
/// For a block whose key (the address of the counter its instructions go
/// to) is not its slot's: the counts so far go to the slot's key, and the
/// slot starts afresh under `key`.
void vgc_lines_switch_key(VgcLineSlot* slot, ULong key);
/// The slot of the block that ended in the client request being served.
extern VgcLineSlot* vgc_clreq_block_lines;
/// CALLGRIND_TOGGLE_COLLECT: the request's block goes to `key`.
void vgc_lines_request_block_to(ULong key);
/// Discards all line costs; with a `request_block_key`, the request's block
/// starts the new figures (CALLGRIND_ZERO_STATS), else nothing (a fork).
void vgc_lines_zero(ULong request_block_key);

/// One line's collected self cost under one function.
typedef struct {
  VgcFunction* function;
  UInt file;  // vgc_lines_file_name
  UInt line;
  ULong cost;
} VgcLineCost;
/// Every collected line cost, sorted by function id, file name and line,
/// in a block the caller frees (VG_(free)); `*count` entries.
VgcLineCost* vgc_lines_collect(UInt* count);
const HChar* vgc_lines_file_name(UInt file);
/// Files named so far (their numbers are 0 to this - 1), and the number of
/// "???", callgrind's name for code without line information.
UInt vgc_lines_file_count(void);
UInt vgc_lines_unknown_file(void);

/// The order of two positions in a profile: by file name, then line.
Int vgc_lines_position_order(UInt file_a, UInt line_a, UInt file_b, UInt line_b);
/// The file and line of the instruction at `addr`, or "???" and 0.
void vgc_lines_source_of(Addr addr, UInt* file, UInt* line);

/// A call's position, made when its block is translated and kept for the
/// run (vgcount_calls.c): the calling instruction's file and line (callgrind
/// puts a call on the line of the instruction whose exit made it: the
/// block's last, or a side exit's), and where a call returns (0 for a jump
/// taken for a call).
typedef struct VgcCallInfo {
  UInt file, line;
  Addr ret_addr;
  // The last call made here (vgcount_calls.c): most call sites call one
  // function from one context, which then costs no hash lookup.
  HWord cached_target;
  struct VgcCallTarget* cached_callee;
  struct VgcCallSite* cached_site;  // never NULL
  HWord site_target;                // the call target cached_site is for, or 0
  // While site_target is set: the next position whose cached edge is a call
  // to the same target, and the link that points here (vgcount_calls.c), so
  // that the edges cached for a target go when its code is discarded.
  struct VgcCallInfo* next_for_target;
  struct VgcCallInfo** link_for_target;
} VgcCallInfo;

/// Turns call recording on; call in post_clo_init when profiling.
void vgc_calls_init(void);
Bool vgc_calls_enabled(void);
/// The position of the block's last instruction `last_insn`; `ret_addr` as
/// above.
VgcCallInfo* vgc_calls_info(Addr last_insn, Addr ret_addr);

/// Helpers generated code calls. Each takes the running thread's counter
/// (after the calling block; for an entry jump, before the entered block),
/// stack pointer (the one the callee, or the code returned to, starts with)
/// and context function from the thread itself: the calling code declares
/// that the helper reads them, so the block's writes to them come first.
void vgc_calls_on_call(VgcCallInfo* at, HWord target);
void vgc_calls_on_entry_jump(VgcFunction* callee, VgcCallInfo* at);
void vgc_calls_on_plt_jump(VgcCallInfo* at, HWord target);
/// The block returned to is no function entered by a jump, whether the
/// return matched a call or was taken for one: generated code sets the
/// thread's PUSHED_FOR word to `target`.
void vgc_calls_on_return(VgcCallInfo* at, HWord target);

/// Pops every call of thread `tid` at its collected figure `collected` (its
/// end, or the end of the run).
void vgc_calls_thread_done(ThreadId tid, ULong collected);
/// Thread `tid` enters a signal handler, and leaves it (at its sigreturn,
/// with the handler's collected figure).
void vgc_calls_signal_enter(ThreadId tid);
void vgc_calls_signal_leave(ThreadId tid, ULong collected);
/// CALLGRIND_ZERO_STATS, fork and an exec's next part: every edge starts
/// from zero, and the calls in progress from each thread's present figure,
/// less `kept` in thread `tid`: the request's own block, which callgrind
/// adds after it zeroes (0 and any thread otherwise).
void vgc_calls_restart(ThreadId tid, ULong kept);
/// A forked child: only `keep` goes on.
void vgc_calls_forget_other_threads(ThreadId keep);

/// The function at `target`, as a call there names its callee.
VgcFunction* vgc_calls_function_at(HWord target);

/// Every call edge at one call position, newest first: its calls, and their
/// inclusive cost.
typedef struct VgcCallSite {
  struct VgcCallSite* chain;  // VgHashNode's layout
  UWord key;
  VgcFunction* caller;
  VgcFunction* callee;
  UInt file, line;  // the call's position in the caller
  ULong calls;
  ULong inclusive;
  struct VgcCallSite* next;
} VgcCallSite;

/// One entry of a thread's call stack. `site` is NULL for a call into
/// skipped code (a PLT stub).
typedef struct {
  VgcCallSite* site;
  ULong enter;  // the thread's collected figure at the call
  Addr sp;
  Addr ret_addr;  // 0 for a jump taken for a call
  // The stack's `from_skipped` when it was pushed, given back on pop.
  VgcCallInfo* saved_from_skipped;
} VgcCallEntry;

/// Entries below a call stack's first, for generated code to read.
#define VGC_CALL_SENTINELS 3

/// Nested signal handlers whose bottoms are kept; deeper ones share the
/// innermost's.
#define VGC_MAX_CALL_SIGNAL_DEPTH 32

/// A thread's call stack. Generated code pushes and pops the common calls
/// itself (vgcount_call_stack.c), through the first nine fields; the rest is
/// vgcount_calls.c's, which moves the limits so that generated code leaves
/// it every case it does not handle.
typedef struct {
  VgcCallEntry* top;         // the top entry; base - 1 when none
  VgcCallEntry* push_limit;  // generated code pushes only while top < push_limit
  VgcCallEntry* pop_floor;   // and pops only entries above pop_floor
  ULong offset;              // the thread's collected figure is raw - offset while it collects
  // Set while the thread runs skipped code that a call from `from_skipped`
  // entered: the next call it makes is charged to that call's position.
  VgcCallInfo* from_skipped;
  // What push_limit and pop_floor are while only helpers may change the
  // stack; generated code that enters skipped code sets them.
  VgcCallEntry* closed_push_limit;
  VgcCallEntry* closed_pop_floor;
  // And what they are once the skipped code ends, for generated code that
  // ends it (a PLT stub's jump to its function).
  VgcCallEntry* open_push_limit;
  VgcCallEntry* open_pop_floor;
  VgcCallEntry* base;  // entry 0; VGC_CALL_SENTINELS entries lie below it
  UInt capacity;
  // Signal handlers the thread is in: the depth each started at (calls
  // below it are the interrupted code's), and whether the handler's first
  // block is still to come (it is reached by no call or jump).
  UInt signal_bottom[VGC_MAX_CALL_SIGNAL_DEPTH];
  UInt signals;
  Bool handler_starts;
  // The thread does not collect: only helpers change the stack then, so
  // generated code need not test the collect state itself.
  Bool not_collecting;
} VgcCallStack;

/// Thread `tid`'s stack (0 when calls are not recorded), for its CALLS word,
/// and the figure its collected count is raw less while it collects.
HWord vgc_calls_stack_of(ThreadId tid);
void vgc_calls_set_offset(ThreadId tid, ULong uncollected);
/// Thread `tid`'s collect state, whenever it changes.
void vgc_calls_set_collecting(ThreadId tid, Bool collecting);
typedef struct {
  VgcFunction* caller;
  VgcFunction* callee;
  UInt file, line;  // the call's position in the caller
  ULong calls;
  ULong inclusive;
} VgcCallSiteCost;
VgcCallSite* vgc_call_sites(void);
VgcCallSite* vgc_call_site_next(const VgcCallSite* site);
void vgc_call_site_get(const VgcCallSite* site, VgcCallSiteCost* out);

/// Thread `tid`'s collected instructions at raw figure `raw` (those it ran
/// while collecting), and at its counter's present figure.
ULong vgc_account_collected(ThreadId tid, ULong raw);
ULong vgc_account_collected_now(ThreadId tid);

/// Where an output goes: a file named by its option, or, when workgate
/// gave a channel, messages on it (vgcount_channel.c).
typedef enum { kVgcOutputCount = 1, kVgcOutputProfile = 2 } VgcOutputKind;
typedef struct {
  VgcOutputKind kind;
  Int fd;       // the file's descriptor; -1 on the channel
  HChar* path;  // the file's name; NULL on the channel
} VgcOutput;

/// The messages on the channel (vgcount_channel.c; the receiving end is
/// src/counter/vgcount_channel.h, which must agree).
typedef enum {
  kVgcMessageCount = 1,       // the report, in parts
  kVgcMessageProfile = 2,     // the profile, in parts
  kVgcMessageTamper = 3,      // a system call that reaches what it must not
  kVgcMessageHello = 4,       // a process's first message: its parent's pid
  kVgcMessageExec = 5,        // the outputs before it were those of a program
                              // that now execs the path it carries
  kVgcMessageExecFailed = 6,  // that exec failed: the program goes on
  kVgcMessageUncounted = 7,   // a client request that hides or moves work
} VgcMessageKind;
#define VGC_TOKEN_BYTES 16

/// Takes the socket `given` (--vgcount-channel-fd) as the channel, or the
/// one a previous generation of this process left across its exec, and
/// sends this process's hello. False, with Valgrind's message saying why,
/// when there is none or the descriptor limits do not let it stay reserved.
Bool vgc_channel_open(Int given);
Bool vgc_channel_active(void);
/// In a forked child, before its first instruction: its own token and hello.
void vgc_channel_after_fork(void);
/// This process's parent: the process that made it, as it was when the tool
/// started, or, in a child made by fork, the process that forked it, even
/// where that one has ended before the child first ran (getppid() would then
/// name whoever adopted it). Set by vgc_process_start at start-up and by
/// vgc_channel_after_fork in a forked child.
void vgc_process_start(void);
Int vgc_parent_pid(void);
/// Called before each of the program's system calls: one that could reach
/// Valgrind's reserved descriptors, or another process, makes the count
/// invalid before it runs.
void vgc_channel_pre_syscall(UInt number, const UWord* args, UInt arg_count);
/// The outputs just sent were the program's up to its exec of `path`; and
/// that exec failed.
void vgc_channel_exec(const HChar* path);
void vgc_channel_exec_failed(void);
/// The count cannot be trusted: `kind` (tamper or uncounted) and what the
/// program did, a short name. On the channel at once; without one, a
/// message and an "invalid:" line of the report.
void vgc_channel_invalid(VgcMessageKind kind, const HChar* what);
Int vgc_channel_invalid_count(void);
const HChar* vgc_channel_invalid_reason(Int i);

/// Opens the output of `kind`: on the channel, or the file that `option`'s
/// `path_template` expands to (%p, %q{VAR}), created or truncated. False,
/// with Valgrind's message naming the file, when it cannot.
Bool vgc_output_open(VgcOutput* out, VgcOutputKind kind, const HChar* option,
                     const HChar* path_template);
/// Writes all `length` bytes of `text`; False on a failed write.
Bool vgc_output_write(VgcOutput* out, const HChar* text, SizeT length);
/// Ends the output (on the channel, its end message when `ok`); returns
/// `ok`, with Valgrind's message when it is False.
Bool vgc_output_close(VgcOutput* out, Bool ok);

/// What vgcount_pin.c pins, and what it meets and cannot pin; the output
/// file lists the kinds by name with their counts.
typedef enum {
  kVgcTsc,           // RDTSC, RDTSCP (arm64: CNTVCT_EL0)
  kVgcRdrand,        // RDRAND helper calls (32 bits each)
  kVgcRdseed,        // RDSEED helper calls
  kVgcClock,         // clock_gettime, gettimeofday, time system calls
  kVgcGetrandom,     // getrandom system calls
  kVgcRandomDevice,  // reads of /dev/urandom or /dev/random
  kVgcSysinfo,       // sysinfo system calls: uptime, loads, free memory fixed
  kVgcUptime,        // opens of /proc/uptime, answered from the pinned clock
  kVgcPinnedKinds
} VgcPinnedKind;
typedef enum {
  kVgcThreads,  // more than one thread ran: the schedule decides
  kVgcSignals,  // signals delivered
  kVgcTimes,    // system calls that read time or the machine unpinned
  kVgcGetrusage,
  kVgcGetcpu,
  kVgcTimerRead,    // timer_gettime, timerfd_gettime
  kVgcAdjtime,      // adjtimex, clock_adjtime
  kVgcMachineFile,  // reads of /proc and /sys files that change as the
                    // machine runs, and of devices (vgcount_pin.c's rule)
  kVgcUnpinnedKinds
} VgcUnpinnedKind;

/// Pinning on (the default) or off (--vgcount-pin=no). CPUID's RDTSCP bit
/// is hidden either way.
void vgc_pin_set_enabled(Bool enabled);
Bool vgc_pin_enabled(void);

/// Adds `sb_out`'s version of dirty statement `st` when pinning changes it
/// (CPUID) and returns True; otherwise may swap the callee of a TSC or
/// random-number helper in place and returns False (the caller adds `st`).
Bool vgc_pin_statement(IRSB* sb_out, IRStmt* st);

/// The tool's system-call post handler's share: pinned answers written over
/// the kernel's, descriptors of the random devices followed, unpinned
/// readings counted.
void vgc_pin_post_syscall(ThreadId tid, UInt number, UWord* args, SysRes result);

/// Before the first client instruction of the process: pins AT_RANDOM.
void vgc_pin_at_start(ThreadId tid);

/// Counts `n` more of an unpinned kind (signals, from vgcount_account.c).
void vgc_pin_note_unpinned(VgcUnpinnedKind kind, ULong n);

/// Fills the output file's two lines, "pinned: name=N ..." and
/// "unpinned: name=N ...", each at most `size` bytes.
void vgc_pin_describe(HChar* pinned, HChar* unpinned, SizeT size);

/// In a forked child: its lists start empty (the parent's stay the
/// parent's); the clock and stream go on from where the parent was.
void vgc_pin_forget_counts(void);

/// Whether the /proc or /sys file the kernel names `path` (an open
/// descriptor's name in /proc/self/fd) holds the same text for as long as a
/// program runs: the rule that decides which reads are unpinned
/// "machine-file" readings, and which files vgcount_inputs.c records as
/// "machine".
Bool vgc_pin_machine_file_is_fixed(const HChar* path);

/// What the program read from the file system (vgcount_inputs.c;
/// src/counter/input_record.h has the record lines): off unless
/// --vgcount-inputs=yes.
void vgc_inputs_set_enabled(Bool enabled);
Bool vgc_inputs_enabled(void);
/// The tool's system-call handlers' shares: an exec is recorded before it
/// runs (its part goes out before it: vgc_send_part_before_exec), every
/// other call after it, from its arguments and result.
void vgc_inputs_pre_syscall(UInt number, const UWord* args, UInt arg_count);
void vgc_inputs_post_syscall(UInt number, const UWord* args, UInt arg_count, SysRes result);
/// Writes each record as "input: KIND STATE PATH\n", and "input: overflow\n"
/// when the process read more than the records could say (their bound, or
/// a path the tool could not name); False on a failed write.
Bool vgc_inputs_write(VgcOutput* out);
/// Drops every record: in a forked child (the parent's are the parent's),
/// and after the part before an exec was sent (the next part is another
/// program's).
void vgc_inputs_forget(void);

#endif  // WORKGATE_TOOLS_VGCOUNT_VGCOUNT_H_
