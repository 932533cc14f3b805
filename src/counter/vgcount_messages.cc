#include "counter/vgcount_messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace workgate {

namespace {

// The text of a verdict message, if it is one vgcount would send: a short
// identifier of capitals, lower case, digits, '_' and '-'.
std::string NameIn(const char* data, size_t size) {
  std::string name(data, size);
  if (name.empty() || name.size() > 40) return "";
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-')) {
      return "";
    }
  }
  return name;
}

// Why the client request `name` made process `pid`'s count untrustworthy
// (tools/vgcount/vgcount_requests.c names them).
std::string UncountedWork(int pid, const std::string& name) {
  if (name == "region-again") {
    return fmt::format(
        "uncounted work: process {} turned counting on again after its region had ended; a "
        "thread enters its region once (WORKGATE_REGION_BEGIN() ... WORKGATE_REGION_END()), or "
        "the work between two regions would not be counted",
        pid);
  }
  if (name == "region-in-handler") {
    return fmt::format(
        "uncounted work: process {} turned counting on or off inside a signal handler; a "
        "handler is counted as the code it interrupted, and the region markers belong outside "
        "it",
        pid);
  }
  if (name == "VALGRIND_NON_SIMD_CALL") {
    return fmt::format(
        "uncounted work: process {} ran a function through VALGRIND_NON_SIMD_CALL, which "
        "Valgrind runs on the real CPU, where nothing counts its instructions",
        pid);
  }
  if (name == "VALGRIND_MONITOR_COMMAND") {
    return fmt::format(
        "uncounted work: process {} sent Valgrind a monitor command "
        "(VALGRIND_MONITOR_COMMAND), which can change how Valgrind runs it",
        pid);
  }
  if (name.rfind("CALLGRIND_", 0) == 0) {
    return fmt::format(
        "uncounted work: process {} made the client request {}, which changes what Valgrind "
        "counts; only a workload with `region = true` may turn counting on and off, through "
        "<workgate/region.h>",
        pid, name);
  }
  return fmt::format("uncounted work: process {} made a client request that hides work", pid);
}

// A path an exec named, as the report may show it: at most 200 bytes,
// control characters as '?'. The renderers escape it again for their medium.
std::string ShownPath(const char* data, size_t size) {
  std::string path(data, std::min<size_t>(size, 200));
  for (char& c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (size > 200) path += "...";
  return path.empty() ? "(no path)" : path;
}

}  // namespace

bool VgcountProcess::complete() const {
  return !counts.empty() && counts.back().ended && execs.size() < counts.size();
}

void VgcountMessages::Fail(std::string why) {
  // Bounded: a program that floods the channel with forgeries gets its
  // first few quoted.
  if (failures_.size() < 4 &&
      std::find(failures_.begin(), failures_.end(), why) == failures_.end()) {
    failures_.push_back(std::move(why));
  }
}

void VgcountMessages::Receive(long long sender, const char* data, size_t size) {
  VgcountHeader h{};
  if (size < sizeof h) {
    Fail(fmt::format("a message of {} bytes on vgcount's channel, shorter than its header", size));
    return;
  }
  std::memcpy(&h, data, sizeof h);
  data += sizeof h;
  size -= sizeof h;
  const auto kind = static_cast<VgcountKind>(h.kind);
  if (h.magic != kVgcountMagic || h.pid <= 0 || (h.flags & ~kVgcountEnd) != 0 ||
      h.kind < static_cast<uint32_t>(VgcountKind::kCount) ||
      h.kind > static_cast<uint32_t>(VgcountKind::kUncounted)) {
    Fail("a message on vgcount's channel that vgcount does not send");
    return;
  }
  total_bytes_ += size;
  if (total_bytes_ > kMaxBytes) {
    Fail(fmt::format("vgcount's channel carried more than {} MiB, more than vgcount sends",
                     kMaxBytes >> 20));
    return;
  }
  std::array<uint8_t, 16> token;
  std::memcpy(token.data(), h.token, token.size());
  auto found = senders_.find(sender);
  if (kind == VgcountKind::kHello) {
    int parent = 0;
    if (size != sizeof parent) {
      Fail("a hello on vgcount's channel that vgcount does not send");
      return;
    }
    std::memcpy(&parent, data, sizeof parent);
    // The same pid for two processes of one run: pids wrapped (over 32,768
    // or kernel.pid_max processes), or a process spoke for another. Either
    // way their outputs could not be told apart.
    const auto reused = [&] {
      Fail(fmt::format(
          "two processes of the run said hello on vgcount's channel as process {}: its pids "
          "wrapped, or one is forged, and their counts cannot be told apart",
          h.pid));
    };
    if (found == senders_.end()) {
      for (const auto& [other, s] : senders_) {
        if (s.process.pid == h.pid) return reused();
      }
      Sender& s = senders_[sender];
      s.process.pid = h.pid;
      s.process.parent = parent;
      s.token = token;
      s.process.counts.emplace_back();
      s.process.profiles.emplace_back();
      return;
    }
    // After an exec, the new program's vgcount; before it, only a program
    // can send a hello: vgcount's own comes before the program runs.
    if (found->second.process.complete() && !found->second.execing) return reused();
    if (!found->second.execing || found->second.process.pid != h.pid) {
      Fail(fmt::format(
          "process {} sent a second hello on vgcount's channel: the program itself sends "
          "messages there, so its count could be forged, and it is not used",
          h.pid));
      return;
    }
    found->second.token = token;
    found->second.execing = false;
    return;
  }
  if (found == senders_.end() || found->second.token != token ||
      found->second.process.pid != h.pid) {
    Fail(fmt::format(
        "a message on vgcount's channel, as process {}, that its vgcount did not send (no hello "
        "from it, or another token): the program itself sends messages there, so its count "
        "could be forged, and it is not used",
        h.pid));
    return;
  }
  Sender& s = found->second;
  switch (kind) {
    case VgcountKind::kTamper: {
      const std::string call = NameIn(data, size);
      Fail(fmt::format(
          "process {} of the workload called {}, which can reach Valgrind's own descriptors (the "
          "channel to workgate, its log) or another process's descriptors or memory: its count "
          "could be forged, so it is not used",
          h.pid, call.empty() ? "a system call" : call));
      return;
    }
    case VgcountKind::kUncounted: {
      const std::string name = NameIn(data, size);
      toggled_collection_ = toggled_collection_ || name == "CALLGRIND_TOGGLE_COLLECT";
      Fail(UncountedWork(h.pid, name));
      return;
    }
    case VgcountKind::kExec:
      // The part before it must be whole: its count ended, its profile
      // ended or never begun.
      if (s.execing || !s.process.counts.back().ended ||
          (!s.process.profiles.back().bytes.empty() && !s.process.profiles.back().ended)) {
        Fail(fmt::format("process {} announced an exec on vgcount's channel out of turn", h.pid));
        return;
      }
      s.process.execs.push_back(
          {ShownPath(data, size), static_cast<int>(s.process.counts.size()) - 1});
      s.process.counts.emplace_back();
      s.process.profiles.emplace_back();
      s.execing = true;
      return;
    case VgcountKind::kExecFailed:
      if (!s.execing) {
        Fail(fmt::format("process {} said an exec failed that it never announced", h.pid));
        return;
      }
      s.execing = false;
      return;
    default:
      if (s.execing) {
        Fail(fmt::format("process {} sent an output between its exec and the new program's hello",
                         h.pid));
        return;
      }
      Output(s, kind, h.flags, data, size);
      return;
  }
}

void VgcountMessages::Output(Sender& s, VgcountKind kind, uint32_t flags, const char* data,
                             size_t size) {
  const bool count = kind == VgcountKind::kCount;
  VgcountOutput& output = count ? s.process.counts.back() : s.process.profiles.back();
  if (output.ended) {
    Fail(fmt::format("vgcount's channel carried a second {} of process {}: one is forged",
                     count ? "count" : "profile", s.process.pid));
    return;
  }
  output.bytes.append(data, size);
  if (flags & kVgcountEnd) output.ended = true;
}

bool VgcountMessages::Finish(std::map<int, VgcountProcess>* processes, std::string* why) {
  for (auto& [sender, s] : senders_) {
    VgcountProcess& p = s.process;
    if (s.execing) {
      // The exec happened and no vgcount ever ran the new program.
      Fail(fmt::format(
          "uncounted work: process {} ran {} by exec, and no vgcount counted it (Valgrind "
          "could not start for it)",
          p.pid, p.execs.back().path));
    }
    for (size_t part = 0; part < p.counts.size(); ++part) {
      for (const VgcountOutput* o : {&p.counts[part], &p.profiles[part]}) {
        if (!o->bytes.empty() && !o->ended) {
          Fail(fmt::format("vgcount's {} of process {} ended without its end message",
                           o == &p.counts[part] ? "count" : "profile", p.pid));
        }
      }
    }
  }
  if (!failures_.empty()) {
    why->clear();
    for (const std::string& f : failures_) *why += (why->empty() ? "" : "; ") + f;
    return false;
  }
  processes->clear();
  for (auto& [sender, s] : senders_) (*processes)[s.process.pid] = std::move(s.process);
  return true;
}

}  // namespace workgate
