#pragma once
// What the Valgrind backends read in Valgrind's private logs besides the
// counts: its own errors when a count fails (never its banner), the parent
// pid its banner names, and whether the file system its files went to is
// full, which is the machine's fault, not the workload's.

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
/// run's description and the program's stderr say those. In log order, each
/// line once, at most `max_lines`, each cut to 300 characters.
std::vector<std::string> ValgrindErrorsIn(const std::string& log, size_t max_lines = 6);

/// What a failed run should say about an instruction Valgrind's decoder
/// did not know, from the "unhandled instruction bytes" line VEX writes to
/// the log; "" when the log has none. RDTSCP gets its own advice: Go's
/// runtime executes it wherever CPUID offers it, Valgrind's synthetic CPUID
/// does offer it, and Valgrind decodes it only where the host has it;
/// vgcount hides it from CPUID, callgrind cannot. `tool` is the backend's
/// name ("callgrind", "vgcount").
std::string UndecodedInstructionAdvice(const std::string& log, const std::string& tool);

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

}  // namespace workgate
