#pragma once
// What vgcount's channel carries, and which of it to believe
// (tools/vgcount/vgcount_channel.c sends it). Pure: the socket and the
// reader thread are counter/vgcount_channel.h's; here each message comes
// with the sender's process as the kernel names it (SCM_CREDENTIALS), so
// the rules can be tested on crafted messages.
//
// The program under count shares vgcount's process, so it can send on the
// channel too. What it cannot do is speak first: every vgcount sends a
// hello with a fresh 128-bit token before its program's first instruction
// (in a forked child, before the child's first), and every message after
// it must carry that token. So:
//   - a message from a process that said no hello, or with another token,
//     or a second hello, is forged;
//   - a process whose last output never came (killed, or its Valgrind died)
//     is missing from the run (`Processes`: its count is absent);
//   - an exec splits a process's outputs into parts: those of the program
//     before the exec (sent before the exec runs), then, after the new
//     program's hello, its own. An exec that fails says so before the
//     program runs again; an exec whose program never said hello ran
//     nothing that was counted.
// Whatever else arrives that vgcount would not send makes the run invalid:
// a message that is not well formed, a second output of one kind in one
// part, an output without its end, more than kMaxBytes in all, and
// vgcount's own verdicts (a tamper or an uncounted-work message).

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace workgate {

/// The message header, field for field as vgcount sends it.
struct VgcountHeader {
  uint32_t magic;
  uint32_t kind;
  int32_t pid;  // getpid() in the workload's PID namespace
  uint32_t flags;
  uint8_t token[16];
};

enum class VgcountKind : uint32_t {
  kCount = 1,
  kProfile = 2,
  kTamper = 3,
  kHello = 4,
  kExec = 5,
  kExecFailed = 6,
  kUncounted = 7,
};
inline constexpr uint32_t kVgcountMagic = 0x32434756u;  // "VGC2"
inline constexpr uint32_t kVgcountEnd = 1;
inline constexpr size_t kVgcountChunk = 16384;

/// One output of one part of one process: the bytes, and whether its end
/// came.
struct VgcountOutput {
  std::string bytes;
  bool ended = false;
};

/// A program a process ran by exec, and the part that held the work
/// before it.
struct VgcountExec {
  std::string path;  // as the program gave it: bounded, controls replaced
  int part = 0;
};

/// One process of the run, as its messages tell it.
struct VgcountProcess {
  int pid = 0;     // in the workload's PID namespace
  int parent = 0;  // its parent's, from the first hello
  /// Outputs by part (0: up to the first exec), each a count and a profile.
  std::vector<VgcountOutput> counts, profiles;
  std::vector<VgcountExec> execs;
  /// Its last program's count came whole: the process ended under Valgrind.
  bool complete() const;
};

class VgcountMessages {
 public:
  /// Takes one message from the process the kernel calls `sender`.
  void Receive(long long sender, const char* data, size_t size);
  /// Everything is in: the processes by namespace pid, or "" and `*why`
  /// saying what cannot be trusted (the first few reasons, "; "-joined).
  bool Finish(std::map<int, VgcountProcess>* processes, std::string* why);

  /// A process turned collection on or off with CALLGRIND_TOGGLE_COLLECT in
  /// a run without a region: what <workgate/region.h>'s markers do, so the
  /// program likely marks one (init then writes `region = true`).
  bool toggled_collection() const { return toggled_collection_; }

  /// What the channel may carry in all: a larger flood is a forgery.
  static constexpr size_t kMaxBytes = size_t{512} << 20;

 private:
  struct Sender {
    VgcountProcess process;
    std::array<uint8_t, 16> token{};
    bool execing = false;  // an exec was announced: a hello or its failure is next
  };
  void Fail(std::string why);
  void Output(Sender& s, VgcountKind kind, uint32_t flags, const char* data, size_t size);

  std::map<long long, Sender> senders_;
  size_t total_bytes_ = 0;
  bool toggled_collection_ = false;
  std::vector<std::string> failures_;
};

}  // namespace workgate
