#include "util/sha256.h"

#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

namespace workgate {
namespace {

std::string ToHex(const uint8_t* bytes, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    hex.push_back(kDigits[bytes[i] >> 4]);
    hex.push_back(kDigits[bytes[i] & 0xf]);
  }
  return hex;
}

// nettle's digests need no initialisation of the library and no lookup of
// an implementation (OpenSSL 3 reads its configuration and fetches one from
// a provider, about 1 ms of every workgate's start): a context is a struct.
class Sha256 {
 public:
  Sha256() { sha256_init(&ctx_); }
  void Update(const void* data, size_t n) {
    sha256_update(&ctx_, n, static_cast<const uint8_t*>(data));
  }
  std::string Hex() {
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx_, sizeof digest, digest);
    return ToHex(digest, sizeof digest);
  }

 private:
  sha256_ctx ctx_;
};

}  // namespace

std::string Sha256Hex(std::string_view data) {
  Sha256 sha;
  sha.Update(data.data(), data.size());
  return sha.Hex();
}

std::string Sha1Hex(std::string_view data) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, sizeof digest, digest);
  return ToHex(digest, sizeof digest);
}

namespace {

std::optional<std::string> HashFile(const std::string& path, std::string* err) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    *err = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  Sha256 sha;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) sha.Update(buf, n);
  if (std::ferror(file.get())) {
    *err = path + ": read error: " + std::strerror(errno);
    return std::nullopt;
  }
  return sha.Hex();
}

}  // namespace

std::optional<std::string> Sha256OfDescriptor(int fd, std::string* err) {
  Sha256 sha;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0) break;
    sha.Update(buf, static_cast<size_t>(n));
  }
  return sha.Hex();
}

namespace {

// What identifies a file's content without reading it again: a file that
// keeps its device, inode, size and modification time keeps its digest.
struct FileStamp {
  dev_t dev;
  ino_t ino;
  off_t size;
  int64_t mtime_ns;
  auto operator<=>(const FileStamp&) const = default;
};

}  // namespace

std::optional<std::string> Sha256OfFile(const std::string& path, std::string* err) {
  // A comparison fingerprints the same C library, loader and builds for
  // every workload and side: each file is read once per workgate run.
  static std::mutex mutex;
  static std::map<FileStamp, std::string> cache;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return HashFile(path, err);
  const FileStamp stamp{st.st_dev, st.st_ino, st.st_size,
                        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(stamp);
    if (it != cache.end()) return it->second;
  }
  auto digest = HashFile(path, err);
  if (digest) {
    std::lock_guard<std::mutex> lock(mutex);
    cache.emplace(stamp, *digest);
  }
  return digest;
}

}  // namespace workgate
