#include "counter/vgcount_channel.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "util/error.h"

namespace workgate {

namespace {

// tools/vgcount/vgcount_channel.c's message header, field for field.
struct ChannelHeader {
  uint32_t magic;
  uint32_t kind;
  int32_t pid;
  uint32_t flags;
};
constexpr uint32_t kChannelMagic = 0x31434756u;  // "VGC1"
constexpr uint32_t kChannelEnd = 1;
constexpr uint32_t kKindCount = 1;
constexpr uint32_t kKindProfile = 2;
constexpr uint32_t kKindTamper = 3;
constexpr size_t kChannelChunk = 16384;

// The name of the system call in a tamper message, if it is one vgcount
// would send: a short lower-case identifier.
std::string CallName(const char* data, size_t size) {
  std::string name(data, size);
  if (name.empty() || name.size() > 32) return "";
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return "";
  }
  return name;
}

bool WriteFully(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

VgcountChannel::VgcountChannel(std::string dir, std::string count_prefix,
                               std::string profile_prefix)
    : dir_(std::move(dir)),
      count_prefix_(std::move(count_prefix)),
      profile_prefix_(std::move(profile_prefix)) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    throw EnvironmentError(fmt::format("cannot make vgcount's channel: {}", strerror(errno)));
  }
  own_fd_ = pair[0];
  workload_fd_ = pair[1];
  // Nothing goes the other way: vgcount only sends.
  shutdown(own_fd_, SHUT_WR);
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    const int e = errno;
    close(own_fd_);
    close(workload_fd_);
    throw EnvironmentError(fmt::format("cannot make vgcount's channel: {}", strerror(e)));
  }
}

VgcountChannel::~VgcountChannel() {
  if (reader_.joinable()) Finish();
  if (own_fd_ >= 0) close(own_fd_);
  if (workload_fd_ >= 0) close(workload_fd_);
  if (stop_fd_ >= 0) close(stop_fd_);
}

void VgcountChannel::Start() { reader_ = std::thread([this] { Read(); }); }

std::string VgcountChannel::Finish() {
  if (finished_) return "";
  finished_ = true;
  if (reader_.joinable()) {
    const uint64_t one = 1;
    // The reader drains the socket and stops; an eventfd write of 1 cannot
    // fail short of a counter at its maximum, which nothing else writes.
    if (write(stop_fd_, &one, sizeof one) != static_cast<ssize_t>(sizeof one)) {
      Fail("cannot stop the reader of vgcount's channel");
    }
    reader_.join();
  }
  for (const auto& [key, output] : outputs_) {
    if (!output.ended) {
      Fail(fmt::format("vgcount's {} of process {} ended without its end message",
                       key.first == kKindCount ? "count" : "profile", key.second));
    }
  }
  if (failures_.empty()) WriteOutputs();
  std::string all;
  for (const std::string& f : failures_) all += (all.empty() ? "" : "; ") + f;
  return all;
}

void VgcountChannel::WriteOutputs() {
  for (const auto& [key, output] : outputs_) {
    const bool count = key.first == kKindCount;
    const std::string path =
        fmt::format("{}/{}{}", dir_, count ? count_prefix_ : profile_prefix_, key.second);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    const bool ok = fd >= 0 && WriteFully(fd, output.bytes.data(), output.bytes.size());
    const int e = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
      Fail(fmt::format("cannot write {}: {}", path, strerror(errno)));
      return;
    }
    if (!ok) {
      Fail(fmt::format("cannot write {}: {}", path, strerror(e)));
      return;
    }
    (count ? counts_ : profiles_).push_back(path);
  }
  std::sort(counts_.begin(), counts_.end());
  std::sort(profiles_.begin(), profiles_.end());
}

void VgcountChannel::Fail(std::string why) {
  // Bounded: a program that floods the channel with forgeries gets its
  // first few quoted.
  if (failures_.size() < 4) failures_.push_back(std::move(why));
}

void VgcountChannel::Read() {
  std::vector<char> buffer(sizeof(ChannelHeader) + kChannelChunk);
  bool stopping = false;
  while (true) {
    pollfd fds[2] = {{own_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (!stopping && poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      Fail(fmt::format("cannot wait on vgcount's channel: {}", strerror(errno)));
      return;
    }
    if (fds[1].revents & POLLIN) stopping = true;
    // MSG_TRUNC: the length of the whole message, to tell a message larger
    // than vgcount ever sends from one that fits.
    const ssize_t n = recv(own_fd_, buffer.data(), buffer.size(),
                           MSG_TRUNC | (stopping ? MSG_DONTWAIT : 0));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (stopping) return;
      continue;
    }
    if (n < 0) {
      Fail(fmt::format("cannot read vgcount's channel: {}", strerror(errno)));
      return;
    }
    // 0: an empty message, which vgcount never sends, or no sender left,
    // which cannot happen before Finish (workgate holds the workload's end).
    if (n == 0) {
      if (stopping) return;
      Fail("an empty message on vgcount's channel, which vgcount does not send");
      continue;
    }
    if (static_cast<size_t>(n) > buffer.size()) {
      Fail(fmt::format("a message of {} bytes on vgcount's channel, larger than vgcount sends", n));
      continue;
    }
    Receive(buffer.data(), static_cast<size_t>(n));
  }
}

void VgcountChannel::Receive(const char* data, size_t size) {
  ChannelHeader h{};
  if (size < sizeof h) {
    Fail(fmt::format("a message of {} bytes on vgcount's channel, shorter than its header", size));
    return;
  }
  std::memcpy(&h, data, sizeof h);
  data += sizeof h;
  size -= sizeof h;
  if (h.magic != kChannelMagic || h.pid <= 0 || (h.flags & ~kChannelEnd) != 0 ||
      (h.kind != kKindCount && h.kind != kKindProfile && h.kind != kKindTamper)) {
    Fail("a message on vgcount's channel that vgcount does not send");
    return;
  }
  if (h.kind == kKindTamper) {
    const std::string call = CallName(data, size);
    Fail(fmt::format(
        "process {} of the workload called {}, which can reach vgcount's channel to workgate or "
        "another process's descriptors or memory: its count could be forged, so it is not used",
        h.pid, call.empty() ? "a system call" : call));
    return;
  }
  Output& output = outputs_[{h.kind, h.pid}];
  if (output.ended) {
    Fail(fmt::format("vgcount's channel carried a second {} of process {}: one is forged",
                     h.kind == kKindCount ? "count" : "profile", h.pid));
    return;
  }
  total_bytes_ += size;
  if (total_bytes_ > kMaxBytes) {
    Fail(fmt::format("vgcount's channel carried more than {} MiB, more than vgcount sends",
                     kMaxBytes >> 20));
    return;
  }
  output.bytes.append(data, size);
  if (h.flags & kChannelEnd) output.ended = true;
}

}  // namespace workgate
