// ReadElfSymbolInfo on real programs built with known GNU build IDs
// (tests/CMakeLists.txt: unnamed_work_base, unnamed_work_cand), on stripped
// copies of them, and on copies corrupted where a hostile file could lie.

#include "identity/elf_symbols.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "test_paths.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBaseBuildId = "0123456789abcdef0123456789abcdef01234567";

std::string Bytes(const std::string& path) {
  auto text = ReadFile(path);
  EXPECT_TRUE(text.has_value()) << path;
  return text.value_or("");
}

template <typename T>
T Get(const std::string& bytes, size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

template <typename T>
void Put(std::string* bytes, size_t offset, T value) {
  std::memcpy(bytes->data() + offset, &value, sizeof value);
}

class ElfSymbolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    plain_ = testing::BuildPath("tests/unnamed_work_base");
    stripped_ = dir_.path() + "/unnamed_work";
    fs::copy_file(plain_, stripped_);
    const std::string strip = std::string(WORKGATE_STRIP) + " " + stripped_;
    ASSERT_EQ(std::system(strip.c_str()), 0) << strip;
  }
  ElfSymbolInfo Read(const std::string& path) {
    FileSource file;
    std::string err;
    ElfSymbolInfo info;
    EXPECT_TRUE(file.Open(path, &err)) << err;
    EXPECT_TRUE(ReadElfSymbolInfo(file, &info, &err)) << path << ": " << err;
    return info;
  }
  TempDir dir_;
  std::string plain_, stripped_;
};

TEST_F(ElfSymbolsTest, StripRemovesTheSymbolTableAndKeepsTheBuildId) {
  ElfSymbolInfo plain = Read(plain_);
  EXPECT_NE(plain.elf_class, 0);
  EXPECT_TRUE(plain.has_symtab);
  EXPECT_EQ(plain.build_id, kBaseBuildId);
  ElfSymbolInfo stripped = Read(stripped_);
  EXPECT_NE(stripped.elf_class, 0);
  EXPECT_FALSE(stripped.has_symtab);
  EXPECT_EQ(stripped.build_id, kBaseBuildId);
  // What binutils reads agrees.
  const std::string out = dir_.path() + "/notes.txt";
  const std::string readelf = std::string(WORKGATE_READELF) + " -n " + stripped_ + " > " + out;
  ASSERT_EQ(std::system(readelf.c_str()), 0) << readelf;
  std::smatch m;
  const std::string notes = Bytes(out);
  ASSERT_TRUE(std::regex_search(notes, m, std::regex("Build ID: ([0-9a-f]+)"))) << notes;
  EXPECT_EQ(m[1], stripped.build_id);
}

TEST_F(ElfSymbolsTest, OtherFilesAreNotElf) {
  const std::string script = dir_.path() + "/script";
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  ElfSymbolInfo info = Read(script);
  EXPECT_EQ(info.elf_class, 0);
  EXPECT_FALSE(info.has_symtab);
  EXPECT_EQ(info.build_id, "");
}

// Where the build ID note and the section header table lie in a 64-bit file.
struct Layout {
  size_t note_phdr = 0;  // the program header of the PT_NOTE holding the build ID
  size_t note = 0;       // the build ID note itself
};

Layout Locate(const std::string& bytes) {
  Layout out;
  const Elf64_Ehdr eh = Get<Elf64_Ehdr>(bytes, 0);
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    const size_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    const Elf64_Phdr ph = Get<Elf64_Phdr>(bytes, at);
    if (ph.p_type != PT_NOTE) continue;
    const size_t align = ph.p_align == 8 ? 8 : 4;
    for (size_t n = ph.p_offset; n + 12 <= ph.p_offset + ph.p_filesz;) {
      const uint32_t namesz = Get<uint32_t>(bytes, n), descsz = Get<uint32_t>(bytes, n + 4);
      if (Get<uint32_t>(bytes, n + 8) == NT_GNU_BUILD_ID) {
        out.note_phdr = at;
        out.note = n;
        return out;
      }
      n = (n + 12 + namesz + align - 1) / align * align;
      n = (n + descsz + align - 1) / align * align;
    }
  }
  ADD_FAILURE() << "no build ID note";
  return out;
}

TEST_F(ElfSymbolsTest, MalformedFilesAreRefused) {
  const std::string good = Bytes(stripped_);
  ASSERT_GT(good.size(), sizeof(Elf64_Ehdr));
  if (good[EI_CLASS] != ELFCLASS64) GTEST_SKIP() << "the corruptions below are for ELF64";
  const Layout at = Locate(good);
  ElfSymbolInfo info;
  std::string err;
  ASSERT_TRUE(ParseElfSymbolInfo(good, &info, &err)) << err;
  ASSERT_EQ(info.build_id, kBaseBuildId);

  const struct {
    const char* what;
    void (*corrupt)(std::string*, const Layout&);
    const char* error;
  } cases[] = {
      {"note larger than its segment",
       [](std::string* b, const Layout& l) { Put<uint32_t>(b, l.note + 4, 0xffffffffu); },
       "runs past its segment"},
      {"name larger than its segment",
       [](std::string* b, const Layout& l) { Put<uint32_t>(b, l.note, 0xfffffff0u); },
       "runs past its segment"},
      {"empty build ID", [](std::string* b, const Layout& l) { Put<uint32_t>(b, l.note + 4, 0u); },
       "build ID of 0 bytes"},
      {"note segment over the bound",
       [](std::string* b, const Layout& l) {
         Put<uint64_t>(b, l.note_phdr + offsetof(Elf64_Phdr, p_filesz), kMaxNoteBytes + 1);
       },
       "note segment of"},
      {"note segment beyond the file",
       [](std::string* b, const Layout& l) {
         Put<uint64_t>(b, l.note_phdr + offsetof(Elf64_Phdr, p_offset), b->size() - 4);
       },
       "beyond the end of the file"},
      {"section headers beyond the file",
       [](std::string* b, const Layout&) {
         Put<uint64_t>(b, offsetof(Elf64_Ehdr, e_shoff), b->size());
       },
       "beyond the end of the file"},
      {"section header size",
       [](std::string* b, const Layout&) {
         Put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shentsize), 12);
       },
       "section header size 12"},
      {"extended section count over the bound",
       [](std::string* b, const Layout&) {
         // e_shnum 0: the count is section 0's sh_size.
         const uint64_t shoff = Get<uint64_t>(*b, offsetof(Elf64_Ehdr, e_shoff));
         Put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shnum), 0);
         Put<uint64_t>(b, shoff + offsetof(Elf64_Shdr, sh_size), kMaxSectionHeaders + 1);
       },
       "more than 4096 ELF section headers"},
      {"program headers beyond the file",
       [](std::string* b, const Layout&) {
         Put<uint64_t>(b, offsetof(Elf64_Ehdr, e_phoff), b->size() - 8);
       },
       "program headers beyond the end"},
  };
  for (const auto& c : cases) {
    std::string bad = good;
    c.corrupt(&bad, at);
    info.build_id = "stale";
    info.has_symtab = true;
    EXPECT_FALSE(ParseElfSymbolInfo(bad, &info, &err)) << c.what;
    EXPECT_NE(err.find(c.error), std::string::npos) << c.what << ": " << err;
    // Nothing half-read is left.
    EXPECT_EQ(info.build_id, "") << c.what;
    EXPECT_FALSE(info.has_symtab) << c.what;
  }
  // Every prefix of the file is read or refused, never read past.
  for (size_t len = 0; len < good.size(); len += 1 + len / 16) {
    std::string cut = good.substr(0, len);
    ParseElfSymbolInfo(cut, &info, &err);
  }
}

TEST_F(ElfSymbolsTest, ExtendedSectionCountIsRead) {
  // e_shnum 0 with section 0's sh_size holding the real count (the gABI's
  // form for 0xff00 sections or more): the symbol table is still found.
  std::string bytes = Bytes(plain_);
  if (bytes[EI_CLASS] != ELFCLASS64) GTEST_SKIP() << "the edit below is for ELF64";
  const Elf64_Ehdr eh = Get<Elf64_Ehdr>(bytes, 0);
  Put<uint16_t>(&bytes, offsetof(Elf64_Ehdr, e_shnum), 0);
  Put<uint64_t>(&bytes, eh.e_shoff + offsetof(Elf64_Shdr, sh_size), eh.e_shnum);
  ElfSymbolInfo info;
  std::string err;
  ASSERT_TRUE(ParseElfSymbolInfo(bytes, &info, &err)) << err;
  EXPECT_TRUE(info.has_symtab);
  // Without any section headers nothing names the code.
  Put<uint64_t>(&bytes, offsetof(Elf64_Ehdr, e_shoff), 0);
  ASSERT_TRUE(ParseElfSymbolInfo(bytes, &info, &err)) << err;
  EXPECT_FALSE(info.has_symtab);
  EXPECT_EQ(info.build_id, kBaseBuildId);
}

TEST(BuildIdDebugPath, FirstByteIsTheDirectory) {
  EXPECT_EQ(BuildIdDebugPath("/usr/lib/debug", "0123abcd"),
            "/usr/lib/debug/.build-id/01/23abcd.debug");
  EXPECT_EQ(BuildIdDebugPath("/d", "ab"), "/d/.build-id/ab/.debug");
  EXPECT_EQ(BuildIdDebugPath("/d", "a"), "");
  EXPECT_EQ(BuildIdDebugPath("/d", ""), "");
}

}  // namespace
}  // namespace workgate
