#pragma once
// The receiving end of vgcount's channel (tools/vgcount/vgcount_channel.c):
// a SOCK_SEQPACKET socket pair whose one end the workload's Valgrind keeps
// in its reserved descriptors, where the program cannot name it, and whose
// other end only workgate holds.
//
// A thread reads the messages while the workload runs (a profile can be
// larger than the socket's buffer) and keeps them in memory; once no
// process of the tree is left, Finish() writes each process's count and
// profile to a directory of workgate's, under the names vgcount gives its
// files (vgcount.out.<pid>, vgcount.profile.<pid>), so the rest of the
// counter reads them as files. Written after the tree has ended, by name
// with O_EXCL|O_NOFOLLOW, and listed from what was written rather than from
// the directory: nothing the workload did to that directory while it ran
// can add, change or redirect one.
//
// Whatever arrives that vgcount would not send makes the run invalid: a
// message that is not well formed, a second output of one kind from one
// process, an output without its end, more than kMaxBytes in all, and
// vgcount's tamper messages (the program made a system call that could
// reach the channel or another process's memory).

#include <cstddef>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace workgate {

class VgcountChannel {
 public:
  /// Makes the socket pair; `dir` receives the outputs. Throws
  /// EnvironmentError when the pair cannot be made.
  VgcountChannel(std::string dir, std::string count_prefix, std::string profile_prefix);
  ~VgcountChannel();
  VgcountChannel(const VgcountChannel&) = delete;
  VgcountChannel& operator=(const VgcountChannel&) = delete;

  /// The end the workload inherits (close-on-exec until the launch clears
  /// it for the workload alone).
  int workload_fd() const { return workload_fd_; }
  /// Starts reading. Call before the launch.
  void Start();
  /// After the launch has returned (no process of the tree is left, so
  /// everything sent is queued): reads what is left, stops, and writes the
  /// outputs. Returns "" when every message was well formed and every
  /// output complete and written, else why the outputs cannot be trusted.
  std::string Finish();
  /// The files Finish() wrote, sorted.
  const std::vector<std::string>& counts() const { return counts_; }
  const std::vector<std::string>& profiles() const { return profiles_; }

  /// What the channel may carry in all: a larger flood is a forgery.
  static constexpr size_t kMaxBytes = size_t{512} << 20;

 private:
  void Read();
  void Receive(const char* data, size_t size);
  void Fail(std::string why);
  void WriteOutputs();

  std::string dir_;
  std::string count_prefix_;
  std::string profile_prefix_;
  int own_fd_ = -1;
  int workload_fd_ = -1;
  int stop_fd_ = -1;  // an eventfd: Finish() wakes the reader
  std::thread reader_;
  bool finished_ = false;
  // Each output by (kind, pid), and whether its end message came. Only the
  // reader thread touches these until Finish() has joined it.
  struct Output {
    std::string bytes;
    bool ended = false;
  };
  std::map<std::pair<unsigned, int>, Output> outputs_;
  size_t total_bytes_ = 0;
  std::vector<std::string> failures_;
  std::vector<std::string> counts_;
  std::vector<std::string> profiles_;
};

}  // namespace workgate
