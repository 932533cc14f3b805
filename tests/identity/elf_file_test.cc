#include "identity/elf_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>

#include "identity/elf_builder.h"
#include "test_requirements.h"

namespace workgate {
namespace {

using testing::BuildElf;
using testing::BuiltElf;
using testing::ElfSpec;
using testing::Poke;

ElfFile Parsed(const std::string& bytes) {
  ElfFile elf;
  std::string err;
  EXPECT_TRUE(ParseElf(bytes, &elf, &err)) << err;
  return elf;
}

// The error ParseElf gives for `bytes`; "" when it takes them.
std::string ErrorOf(const std::string& bytes) {
  ElfFile elf;
  std::string err;
  return ParseElf(bytes, &elf, &err) ? "" : err;
}

ElfSpec Sample() {
  ElfSpec spec;
  spec.interpreter = "/lib/ld-test.so.1";
  spec.needed = {"liba.so.1", "libb.so.2"};
  spec.soname = "libsample.so.3";
  spec.runpath = "$ORIGIN/lib:/opt/x";
  return spec;
}

TEST(ElfFileTest, ReadsEveryFieldOfBothClasses) {
  for (bool is64 : {true, false}) {
    ElfSpec spec = Sample();
    spec.is64 = is64;
    spec.machine = is64 ? testing::kHostMachine : testing::kHostMachine32;
    spec.flags_1 = DF_1_NODEFLIB;
    ElfFile elf = Parsed(BuildElf(spec).bytes);
    EXPECT_EQ(elf.elf_class, is64 ? ELFCLASS64 : ELFCLASS32);
    EXPECT_EQ(elf.machine, spec.machine);
    EXPECT_EQ(elf.interpreter, "/lib/ld-test.so.1");
    EXPECT_EQ(elf.needed, spec.needed);
    EXPECT_EQ(elf.soname, "libsample.so.3");
    EXPECT_EQ(elf.runpath, spec.runpath);
    EXPECT_EQ(elf.rpath, std::nullopt);
    EXPECT_TRUE(elf.no_default_libs);
  }
}

TEST(ElfFileTest, RunpathHidesRpathAsTheLoaderIgnoresIt) {
  ElfSpec spec = Sample();
  spec.rpath = "/old";
  EXPECT_EQ(Parsed(BuildElf(spec).bytes).rpath, std::nullopt);
  spec.runpath.reset();
  ElfFile elf = Parsed(BuildElf(spec).bytes);
  EXPECT_EQ(elf.rpath, "/old");
  EXPECT_EQ(elf.runpath, std::nullopt);
}

TEST(ElfFileTest, NotElfOfThisByteOrderIsNoError) {
  BuiltElf built = BuildElf(Sample());
  std::string other_order = built.bytes;
  other_order[EI_DATA] = other_order[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
  std::string other_class = built.bytes;
  other_class[EI_CLASS] = 7;
  for (const std::string& bytes : {std::string(), std::string("#!/bin/sh\necho hi\n"),
                                   std::string("\x7f"
                                               "ELF"),
                                   built.bytes.substr(0, 40), other_order, other_class}) {
    ElfFile elf = Parsed(bytes);
    EXPECT_EQ(elf.elf_class, 0);
    EXPECT_EQ(elf.interpreter, "");
  }
}

TEST(ElfFileTest, MalformedFilesAreErrors) {
  const BuiltElf b = BuildElf(Sample());
  const size_t load = b.phdr_offset, dynamic = b.phdr_offset + sizeof(Elf64_Phdr),
               interp = b.phdr_offset + 2 * sizeof(Elf64_Phdr);
  const size_t dyn0 = b.dynamic_offset;  // the first DT_NEEDED
  struct Case {
    const char* what;
    size_t offset;
    uint64_t value;
    size_t width;
    const char* error;
  };
  const Case cases[] = {
      {"phoff past the end", offsetof(Elf64_Ehdr, e_phoff), 1ull << 40, 8, "program headers"},
      {"huge phnum", offsetof(Elf64_Ehdr, e_phnum), 0xffff, 2, "more than 1024"},
      {"odd phentsize", offsetof(Elf64_Ehdr, e_phentsize), 12, 2, "program header size"},
      {"interp too long", interp + offsetof(Elf64_Phdr, p_filesz), 1 << 20, 8, "interpreter"},
      {"interp outside", interp + offsetof(Elf64_Phdr, p_offset), ~0ull - 4, 8, "interpreter"},
      {"huge dynamic", dynamic + offsetof(Elf64_Phdr, p_filesz), 1ull << 62, 8, "dynamic"},
      {"dynamic outside", dynamic + offsetof(Elf64_Phdr, p_offset), 1ull << 33, 8, "dynamic"},
      {"strtab unmapped", load + offsetof(Elf64_Phdr, p_vaddr), 1ull << 50, 8, "no loaded"},
      {"name past strsz", dyn0 + offsetof(Elf64_Dyn, d_un), 1ull << 31, 8, "outside the string"},
      {"name offset wraps", dyn0 + offsetof(Elf64_Dyn, d_un), ~0ull, 8, "outside the string"},
  };
  for (const Case& c : cases) {
    std::string bytes = b.bytes;
    if (c.width == 8) Poke<uint64_t>(&bytes, c.offset, c.value);
    if (c.width == 2) Poke<uint16_t>(&bytes, c.offset, static_cast<uint16_t>(c.value));
    std::string err = ErrorOf(bytes);
    EXPECT_NE(err.find(c.error), std::string::npos) << c.what << ": '" << err << "'";
  }
}

TEST(ElfFileTest, StringsMustEndInsideTheTableAndTheLimit) {
  ElfSpec spec = Sample();
  spec.needed = {std::string(kMaxElfString + 10, 'x')};
  EXPECT_NE(ErrorOf(BuildElf(spec).bytes).find("unterminated or longer"), std::string::npos);
  // DT_STRSZ cut short of the first name's NUL: the name does not end in the table.
  BuiltElf b = BuildElf(Sample());
  for (size_t off = b.dynamic_offset;; off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    std::memcpy(&d, b.bytes.data() + off, sizeof d);
    if (d.d_tag == DT_STRSZ) {
      Poke<uint64_t>(&b.bytes, off + offsetof(Elf64_Dyn, d_un), 4);
      break;
    }
  }
  EXPECT_NE(ErrorOf(b.bytes).find("unterminated"), std::string::npos);
  // Names but no string table.
  std::string bytes = BuildElf(Sample()).bytes;
  for (size_t off = b.dynamic_offset; off + sizeof(Elf64_Dyn) <= bytes.size();
       off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    std::memcpy(&d, bytes.data() + off, sizeof d);
    if (d.d_tag == DT_STRTAB) Poke<int64_t>(&bytes, off, DT_DEBUG);
  }
  EXPECT_NE(ErrorOf(bytes).find("no DT_STRTAB"), std::string::npos);
}

// Every prefix of a file and thousands of random corruptions of its headers
// and dynamic section: an answer each time, never a crash or a hang.
TEST(ElfFileTest, TruncatedAndCorruptedFilesGiveAnAnswer) {
  const BuiltElf b = BuildElf(Sample());
  for (size_t n = 0; n <= b.bytes.size(); ++n) {
    ElfFile elf;
    std::string err;
    bool ok = ParseElf(std::string_view(b.bytes).substr(0, n), &elf, &err);
    if (n < b.bytes.size()) {
      EXPECT_TRUE(!ok || elf.needed.size() < 2) << n;
    }
  }
  std::mt19937 rng(20240601);
  for (int round = 0; round < 20000; ++round) {
    std::string bytes = b.bytes;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % bytes.size();
      bytes[at] = static_cast<char>(rng() % 3 == 0 ? 0xff : rng());
    }
    ElfFile elf;
    std::string err;
    if (ParseElf(bytes, &elf, &err)) {
      for (const std::string& n : elf.needed) EXPECT_LE(n.size(), kMaxElfString);
    }
  }
}

// `readelf -d` on the same files: the dynamic entries workgate reads.
std::string Readelf(const std::string& path) {
  std::string out;
  FILE* p = popen(("readelf -dW '" + path + "' 2>/dev/null").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(ElfFileTest, AgreesWithReadelfOnSystemFiles) {
  WORKGATE_REQUIRE_TOOL(system("command -v readelf >/dev/null 2>&1") == 0,
                        "readelf is not installed");
  for (const char* path : {"/bin/ls", "/usr/bin/python3", "/lib/x86_64-linux-gnu/libstdc++.so.6",
                           "/lib/aarch64-linux-gnu/libstdc++.so.6"}) {
    if (access(path, R_OK) != 0) continue;
    FileSource file;
    ElfFile elf;
    std::string err;
    ASSERT_TRUE(file.Open(path, &err)) << err;
    ASSERT_TRUE(ReadElfFile(file, &elf, &err)) << path << ": " << err;
    std::vector<std::string> needed;
    std::string soname;
    std::istringstream lines(Readelf(path));
    for (std::string line; std::getline(lines, line);) {
      size_t open = line.find('['), close = line.rfind(']');
      if (open == std::string::npos || close == std::string::npos) continue;
      std::string value = line.substr(open + 1, close - open - 1);
      if (line.find("(NEEDED)") != std::string::npos) needed.push_back(value);
      if (line.find("(SONAME)") != std::string::npos) soname = value;
    }
    EXPECT_FALSE(needed.empty()) << path;
    EXPECT_EQ(elf.needed, needed) << path;
    EXPECT_EQ(elf.soname, soname) << path;
  }
}

// Sums what is read through it.
class CountingSource : public ByteSource {
 public:
  explicit CountingSource(const ByteSource& inner) : inner_(inner) {}
  bool ReadAt(uint64_t offset, size_t len, std::string* out, std::string* err) const override {
    const bool ok = inner_.ReadAt(offset, len, out, err);
    bytes_read_ += out->size();
    end_ = std::max<uint64_t>(end_, offset + out->size());
    return ok;
  }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t end() const { return end_; }  // one past the last byte read

 private:
  const ByteSource& inner_;
  mutable uint64_t bytes_read_ = 0;
  mutable uint64_t end_ = 0;
};

// A file far larger than anything read: only its headers and strings are.
TEST(ElfFileTest, AHugeFileIsReadInPieces) {
  std::string tmpl = ::testing::TempDir() + "/wg_elf_XXXXXX";
  int fd = mkstemp(tmpl.data());
  ASSERT_GE(fd, 0);
  const std::string bytes = BuildElf(Sample()).bytes;
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ASSERT_EQ(ftruncate(fd, off_t{8} << 30), 0);  // sparse: 8 GiB of holes
  close(fd);
  FileSource file;
  ElfFile elf;
  std::string err;
  ASSERT_TRUE(file.Open(tmpl, &err)) << err;
  CountingSource counted(file);
  ASSERT_TRUE(ReadElfFile(counted, &elf, &err)) << err;
  EXPECT_EQ(elf.needed, Sample().needed);
  // Nothing past the ELF file's own bytes, and each of them about once.
  EXPECT_LE(counted.end(), bytes.size()) << "read up to byte " << counted.end();
  EXPECT_LE(counted.bytes_read(), 2 * bytes.size()) << counted.bytes_read() << " bytes read";
  unlink(tmpl.c_str());
}

TEST(ElfFileTest, OnlyRegularFilesAreOpened) {
  FileSource file;
  std::string err;
  EXPECT_FALSE(file.Open("/dev/null", &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  FileSource dir;
  EXPECT_FALSE(dir.Open("/", &err));
  FileSource missing;
  EXPECT_FALSE(missing.Open("/nonexistent/lib.so", &err));
  EXPECT_NE(err.find("/nonexistent/lib.so"), std::string::npos) << err;
}

}  // namespace
}  // namespace workgate
