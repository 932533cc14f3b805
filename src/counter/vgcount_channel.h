#pragma once
// The receiving end of vgcount's channel (tools/vgcount/vgcount_channel.c):
// a SOCK_SEQPACKET socket pair whose one end every Valgrind of the workload
// keeps in its reserved descriptors, and whose other end only workgate
// holds. Which messages to believe is counter/vgcount_messages.h's; this
// is the socket, the reader, and the files.
//
// A thread reads the messages while the workload runs (a profile can be
// larger than the socket's buffer), each with its sender's process as the
// kernel gives it (SO_PASSCRED), and keeps them in memory; once no process
// of the tree is left, Finish() writes each process's counts and profiles
// to a directory of workgate's, under the names vgcount gives its files
// (vgcount.out.<pid>, vgcount.profile.<pid>; a part before an exec N of the
// process gets ".N": vgcount.out.<pid>.1 is what the program the first
// exec started counted), so the rest of the counter reads them as files.
// Written after the tree has ended, by name with O_EXCL|O_NOFOLLOW, and
// listed from what was written rather than from the directory: nothing the
// workload did to that directory while it ran can add, change or redirect
// one.

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "counter/vgcount_messages.h"

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
  /// outputs. Returns "" when every message was vgcount's and every output
  /// complete and written, else why the outputs cannot be trusted.
  std::string Finish();
  /// The files Finish() wrote, sorted.
  const std::vector<std::string>& counts() const { return counts_; }
  const std::vector<std::string>& profiles() const { return profiles_; }
  /// VgcountMessages::toggled_collection.
  bool toggled_collection() const { return messages_.toggled_collection(); }
  /// Every process that said hello, by its pid in the workload's namespace.
  const std::map<int, VgcountProcess>& processes() const { return processes_; }

 private:
  void Read();
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
  // Only the reader thread touches it until Finish() has joined it.
  VgcountMessages messages_;
  std::vector<std::string> failures_;  // the socket's own, not the messages'
  std::map<int, VgcountProcess> processes_;
  std::vector<std::string> counts_;
  std::vector<std::string> profiles_;
};

}  // namespace workgate
