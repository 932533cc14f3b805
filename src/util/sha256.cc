#include "util/sha256.h"

#include <openssl/evp.h>
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

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

std::string ToHex(const unsigned char* bytes, unsigned int n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * n);
  for (unsigned int i = 0; i < n; ++i) {
    hex.push_back(kDigits[bytes[i] >> 4]);
    hex.push_back(kDigits[bytes[i] & 0xf]);
  }
  return hex;
}

// A failure inside EVP means the library itself is broken (SHA-256 is always
// built in); there is nothing a caller could do about it, so abort loudly.
void Check(int ok, const char* what) {
  if (ok != 1) {
    std::fprintf(stderr, "workgate: OpenSSL %s failed\n", what);
    std::abort();
  }
}

MdCtx NewDigest(const EVP_MD* md) {
  MdCtx ctx(EVP_MD_CTX_new());
  if (!ctx) Check(0, "EVP_MD_CTX_new");
  Check(EVP_DigestInit_ex(ctx.get(), md, nullptr), "EVP_DigestInit_ex");
  return ctx;
}

MdCtx NewSha256() { return NewDigest(EVP_sha256()); }

std::string Finish(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  Check(EVP_DigestFinal_ex(ctx, digest, &len), "EVP_DigestFinal_ex");
  return ToHex(digest, len);
}

std::string DigestHex(const EVP_MD* md, std::string_view data) {
  MdCtx ctx = NewDigest(md);
  Check(EVP_DigestUpdate(ctx.get(), data.data(), data.size()), "EVP_DigestUpdate");
  return Finish(ctx.get());
}

}  // namespace

std::string Sha256Hex(std::string_view data) { return DigestHex(EVP_sha256(), data); }

std::string Sha1Hex(std::string_view data) { return DigestHex(EVP_sha1(), data); }

namespace {

std::optional<std::string> HashFile(const std::string& path, std::string* err) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    *err = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  MdCtx ctx = NewSha256();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) {
    Check(EVP_DigestUpdate(ctx.get(), buf, n), "EVP_DigestUpdate");
  }
  if (std::ferror(file.get())) {
    *err = path + ": read error: " + std::strerror(errno);
    return std::nullopt;
  }
  return Finish(ctx.get());
}

}  // namespace

std::optional<std::string> Sha256OfDescriptor(int fd, std::string* err) {
  MdCtx ctx = NewSha256();
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0) break;
    Check(EVP_DigestUpdate(ctx.get(), buf, static_cast<size_t>(n)), "EVP_DigestUpdate");
  }
  return Finish(ctx.get());
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
