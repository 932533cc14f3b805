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
  // Nothing goes the other way: vgcount only sends. And every message comes
  // with its sender's process, as the kernel knows it (unix(7), SO_PASSCRED:
  // a process without CAP_SYS_ADMIN can name no other than itself).
  const int on = 1;
  if (shutdown(own_fd_, SHUT_WR) != 0 ||
      setsockopt(own_fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
    const int e = errno;
    close(own_fd_);
    close(workload_fd_);
    throw EnvironmentError(fmt::format("cannot make vgcount's channel: {}", strerror(e)));
  }
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

void VgcountChannel::Start() {
  reader_ = std::thread([this] { Read(); });
}

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
  std::string why;
  if (!messages_.Finish(&processes_, &why)) failures_.insert(failures_.begin(), why);
  if (failures_.empty()) WriteOutputs();
  std::string all;
  for (const std::string& f : failures_) all += (all.empty() ? "" : "; ") + f;
  return all;
}

void VgcountChannel::WriteOutputs() {
  for (const auto& [pid, process] : processes_) {
    for (size_t part = 0; part < process.counts.size(); ++part) {
      for (const bool count : {true, false}) {
        const VgcountOutput& output = count ? process.counts[part] : process.profiles[part];
        if (!output.ended) continue;
        const std::string path =
            fmt::format("{}/{}{}{}", dir_, count ? count_prefix_ : profile_prefix_, pid,
                        part == 0 ? "" : fmt::format(".{}", part));
        const int fd =
            open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
    }
  }
  std::sort(counts_.begin(), counts_.end());
  std::sort(profiles_.begin(), profiles_.end());
}

void VgcountChannel::Fail(std::string why) {
  if (failures_.size() < 4) failures_.push_back(std::move(why));
}

void VgcountChannel::Read() {
  std::vector<char> buffer(sizeof(VgcountHeader) + kVgcountChunk);
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  bool stopping = false;
  while (true) {
    pollfd fds[2] = {{own_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (!stopping && poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      Fail(fmt::format("cannot wait on vgcount's channel: {}", strerror(errno)));
      return;
    }
    if (fds[1].revents & POLLIN) stopping = true;
    iovec iov{buffer.data(), buffer.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    // MSG_TRUNC: the length of the whole message, to tell a message larger
    // than vgcount ever sends from one that fits. MSG_CMSG_CLOEXEC: a
    // descriptor a program sends along is never inherited by anything.
    const ssize_t n =
        recvmsg(own_fd_, &msg, MSG_TRUNC | MSG_CMSG_CLOEXEC | (stopping ? MSG_DONTWAIT : 0));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (stopping) return;
      continue;
    }
    if (n < 0) {
      Fail(fmt::format("cannot read vgcount's channel: {}", strerror(errno)));
      return;
    }
    // The sender, and descriptors nobody asked for closed.
    long long sender = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
          c->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
        ucred cred;
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        sender = cred.pid;
      } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        const size_t fds_sent = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < fds_sent; ++i) {
          int fd = -1;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
          close(fd);
        }
        Fail("a descriptor sent on vgcount's channel, which vgcount never sends");
      }
    }
    // 0: an empty message, which vgcount never sends, or no sender left,
    // which cannot happen before Finish (workgate holds the workload's end).
    if (n == 0) {
      if (stopping) return;
      Fail("an empty message on vgcount's channel, which vgcount does not send");
      continue;
    }
    if (static_cast<size_t>(n) > buffer.size() || (msg.msg_flags & MSG_CTRUNC)) {
      Fail(fmt::format("a message of {} bytes on vgcount's channel, larger than vgcount sends", n));
      continue;
    }
    if (sender <= 0) {
      Fail("a message on vgcount's channel without its sender's credentials");
      continue;
    }
    messages_.Receive(sender, buffer.data(), static_cast<size_t>(n));
  }
}

}  // namespace workgate
