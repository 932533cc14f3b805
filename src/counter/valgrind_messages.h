#pragma once
// What the Valgrind backends read in Valgrind's private logs besides the
// counts: its own errors when a count fails (never its banner), the parent
// pid its banner names, and whether the file system its files went to is
// full, which is the machine's fault, not the workload's.

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace workgate {

/// Valgrind's own errors in the text of one of its logs, without the
/// "==PID== " prefix: the lines it prints when it gives up ("valgrind: ...",
/// such as "valgrind: ./x: cannot execute binary file" or an unrecognised
/// instruction), "FATAL" and "Fatal error" lines, failed assertions ("the
/// 'impossible' happened", "vex: ..."), running out of memory and failing to
/// make its temporary files. The banner (tool, copyright, command, parent
/// pid) and Valgrind's account of the program's own crash are left out: the
/// run's description and the program's stderr say those. A failed
/// assertion keeps its reason, the lines after "the 'impossible' happened:"
/// up to the blank line before the stack trace (at most 4), joined to it:
/// "valgrind: the 'impossible' happened: Max number of threads is too low".
/// In log order, each error once, at most `max_lines`, each made one line of
/// TerminalSafe text and cut to 300 characters.
std::vector<std::string> ValgrindErrorsIn(const std::string& log, size_t max_lines = 6);

/// What a failed run should say about an instruction Valgrind's decoder
/// did not know, from the "unhandled instruction bytes" line VEX writes to
/// the log; "" when the log has none. RDTSCP gets its own advice: Go's
/// runtime executes it wherever CPUID offers it, Valgrind's synthetic CPUID
/// does offer it, and Valgrind decodes it only where the host has it;
/// vgcount hides it from CPUID, callgrind cannot. Any other instruction is
/// named by its instruction set where its bytes identify one
/// (counter/undecoded_instruction.h: AVX-512, AMX, APX...), with the build
/// option that leaves it out (-march=native is how most builds come to use
/// them); "unknown" where they do not. `tool` is the backend's name
/// ("callgrind", "vgcount").
std::string UndecodedInstructionAdvice(const std::string& log, const std::string& tool);

/// What a failed run should say about a known failure of the tool itself or
/// of Valgrind's decoder: callgrind's assertion in its signal tracking
/// (vgCallgrind_post_signal), which Go's preemption signals set off, sends
/// the user to vgcount; otherwise UndecodedInstructionAdvice. "" when the
/// log holds neither.
std::string ToolFailureAdvice(const std::string& log, const std::string& tool);

/// The programs a process tried to execute that Valgrind would not trace: a
/// setuid, setgid or setcap executable, which it refuses to run under
/// itself ("Warning: Can't execute setuid/setgid/setcap executable: PATH",
/// coregrind/m_syswrap/syswrap-generic.c). Valgrind 3.19 then fails the
/// exec with EACCES; other versions and wrappers run it natively, where its
/// work goes uncounted. Each PATH once, in log order, cut to 300 characters.
std::vector<std::string> UntracedExecutablesIn(const std::string& log);

/// The parent pid in the banner of one process's log ("==12301== Parent
/// PID: 12299"), nullopt when the banner names none. Only the banner is read,
/// up to the blank line that ends it: Valgrind writes it before the program
/// runs and escapes the newlines of the command it shows there, so the
/// program cannot forge it. A forked child's log starts with a banner too.
std::optional<long long> ParentPidInBanner(std::istream& log);

/// Why the file system holding `dir` counts as full, or "" when it does not
/// (or cannot be asked): fewer than 64 KiB left to this user (root may use
/// the blocks reserved for it), or no free inodes. Asked only after a count
/// failed, to tell a full disk from a broken workload:
/// "the file system holding /tmp/x is full (12 KiB left)".
std::string FullFileSystem(const std::string& dir);

/// The room left on the file system holding a directory, as FullFileSystem
/// counts it (root's reserve included for root), to compare before and after
/// a run. `known` is false when it cannot be asked.
struct SpaceLeft {
  bool known = false;
  uint64_t device = 0;  // st_dev of the directory
  uint64_t bytes = 0;
  uint64_t inodes = 0;
};
SpaceLeft SpaceOn(const std::string& dir);

/// What the files under `dir` take: bytes allocated (st_blocks, each inode
/// once) and inodes, without following links; at most `max_entries` are
/// looked at (a tree of millions of empty files is not walked to its end).
struct TreeUsage {
  uint64_t bytes = 0;
  uint64_t inodes = 0;
};
TreeUsage UsageOf(const std::string& dir, uint64_t max_entries = 1000000);

/// Why a full file system is the workload's own doing, or "" when it is not:
/// the workload's private directory `workload_dir` (its working directory,
/// its TMPDIR in it) is on that file system (`now.device`), and of what ran
/// out (under 64 KiB left, or no inode), the file system had room before the
/// run (`before`: at least 1 MiB, or 1000 inodes) and the workload's files
/// there (`used`) take at least half of what the run consumed. Anything else that filled the disk
/// meanwhile (another job, a disk full before the run) leaves the failure the machine's.
std::string FilledByWorkload(const SpaceLeft& before, const SpaceLeft& now,
                             const std::string& workload_dir, uint64_t workload_device,
                             const TreeUsage& used);

}  // namespace workgate
