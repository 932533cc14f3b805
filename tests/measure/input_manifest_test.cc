// A count's input manifest (measure/input_manifest.h): what is left out,
// what each kind of read keeps, an input that changed while the program ran,
// an input that changed since, and the stored form, read back strictly.

#include "measure/input_manifest.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "doc_lists.h"
#include "measure/input_record_of.h"
#include "util/paths.h"
#include "util/sha256.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;

// The record vgcount writes for `kind` of `path`, as the file is now.
InputRecord Record(InputRecord::Kind kind, const std::string& path, bool follow = true) {
  return testing::InputRecordOf(kind, path, follow);
}

class InputManifestTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name)) << text;
  }
  InputManifest Make(const std::vector<InputRecord>& records) const {
    InputManifest m;
    std::string why;
    EXPECT_TRUE(MakeInputManifest(records, scope_, &m, &why)) << why;
    return m;
  }
  std::string WhyNot(const std::vector<InputRecord>& records) const {
    InputManifest m;
    std::string why;
    EXPECT_FALSE(MakeInputManifest(records, scope_, &m, &why));
    return why;
  }

  TempDir dir_;
  ManifestScope scope_;
};

TEST_F(InputManifestTest, WhatIsTheRunsOwnIsLeftOutAndSaysWhy) {
  scope_.excluded_dirs = {"/tmp/workgate-0", "/tmp"};
  scope_.excluded_files = {"/opt/builds/copy/prog"};
  EXPECT_EQ(ExcludedBecause("/proc/self/maps", scope_), "a process's own /proc file");
  EXPECT_EQ(ExcludedBecause("/proc/thread-self/comm", scope_), "a process's own /proc file");
  EXPECT_EQ(ExcludedBecause("/proc/2/status", scope_), "a process's own /proc file");
  EXPECT_EQ(ExcludedBecause("/proc/uptime", scope_), "the pinned clock");
  EXPECT_EQ(ExcludedBecause("/dev/null", scope_), "a device");
  EXPECT_EQ(ExcludedBecause("/tmp/workgate-0/w0123/home.txt", scope_),
            "the workload's own directories");
  EXPECT_EQ(ExcludedBecause("/opt/builds/copy/prog", scope_), "the build");
  // Kept: what the machine and the user hold.
  EXPECT_EQ(ExcludedBecause("/proc/sys/kernel/pid_max", scope_), "");
  EXPECT_EQ(ExcludedBecause("/proc/1234x/status", scope_), "");
  EXPECT_EQ(ExcludedBecause("/dev/shm/shared", scope_), "");
  EXPECT_EQ(ExcludedBecause("/usr/lib/python3/os.py", scope_), "");
  EXPECT_EQ(ExcludedBecause("/tmpdata/input", scope_), "");
  // A ".." leads anywhere: never left out by its text.
  EXPECT_EQ(ExcludedBecause("/tmp/../etc/passwd", scope_), "");
  scope_.pinned = false;
  EXPECT_EQ(ExcludedBecause("/proc/uptime", scope_), "");
}

TEST_F(InputManifestTest, EachKindOfReadKeepsWhatIdentifiesIt) {
  Write("script.lua", "print(1)\n");
  fs::create_directory(Path("mods"));
  Write("mods/a.lua", "");
  fs::create_symlink("script.lua", Path("link"));
  const InputManifest m = Make({
      Record(InputRecord::Kind::kOpen, Path("script.lua")),
      Record(InputRecord::Kind::kOpen, Path("script.lua")),  // twice: one entry
      Record(InputRecord::Kind::kList, Path("mods")),
      Record(InputRecord::Kind::kMeta, Path("script.lua")),
      Record(InputRecord::Kind::kLinkMeta, Path("link"), false),
      Record(InputRecord::Kind::kOpen, Path("absent.lua")),
  });
  ASSERT_EQ(m.entries.size(), 5u) << ManifestJson(m);
  const ManifestEntry& absent = m.entries[0];
  EXPECT_EQ(absent.kind, ManifestEntry::Kind::kMissing);
  EXPECT_EQ(absent.path, Path("absent.lua"));
  const ManifestEntry& link = m.entries[1];
  EXPECT_EQ(link.kind, ManifestEntry::Kind::kMeta);
  EXPECT_EQ(link.type, "link");
  EXPECT_EQ(link.target, "script.lua");
  EXPECT_FALSE(link.follow);
  EXPECT_EQ(m.entries[2].kind, ManifestEntry::Kind::kListing);
  EXPECT_EQ(m.entries[2].path, Path("mods"));
  EXPECT_EQ(m.entries[3].kind, ManifestEntry::Kind::kFile);
  EXPECT_EQ(m.entries[3].sha256, Sha256Hex("print(1)\n"));
  EXPECT_EQ(m.entries[3].size, 9u);
  EXPECT_EQ(m.entries[4].kind, ManifestEntry::Kind::kMeta);
  EXPECT_EQ(m.entries[4].type, "file");
  EXPECT_EQ(m.entries[4].size, 9u);
  EXPECT_EQ(ManifestChange(m), "");
}

TEST_F(InputManifestTest, APathUnderTheExeLinkIsThatPathUnderTheBuild) {
  fs::create_directory(Path("build"));
  Write("build/data.txt", "d");
  fs::create_directory(Path("work"));
  fs::create_directory_symlink(Path("build"), Path("work/exe"));
  scope_.exe_link = Path("work/exe");
  scope_.exe = Path("build");
  const InputManifest m = Make({Record(InputRecord::Kind::kOpen, Path("work/exe/data.txt")),
                                Record(InputRecord::Kind::kExec, Path("work/exe"))});
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].path, Path("build/data.txt"));
}

TEST_F(InputManifestTest, AMachineFileOrAnInputThatChangedDuringTheRunCannotBeKept) {
  InputRecord machine;
  machine.kind = InputRecord::Kind::kMachine;
  machine.path = "/proc/meminfo";
  EXPECT_EQ(WhyNot({machine}), "the program read /proc/meminfo, which changes as the machine runs");

  Write("input.txt", "one");
  const InputRecord seen = Record(InputRecord::Kind::kOpen, Path("input.txt"));
  // A change within the tick of the file system's clock that stamped the
  // open keeps the file's times: no stat shows it (docs/store.md says so).
  usleep(20000);
  Write("input.txt", "two");  // same size: the change time tells
  EXPECT_EQ(WhyNot({seen}), "the file " + Path("input.txt") + " changed while the program ran");

  fs::create_directory(Path("data"));
  const InputRecord listed = Record(InputRecord::Kind::kList, Path("data"));
  usleep(20000);
  Write("data/new", "");
  EXPECT_EQ(WhyNot({listed}), "the directory " + Path("data") + " changed while the program ran");

  const InputRecord looked = Record(InputRecord::Kind::kOpen, Path("later.txt"));
  Write("later.txt", "");
  EXPECT_EQ(WhyNot({looked}), Path("later.txt") + " appeared or changed while the program ran");
}

TEST_F(InputManifestTest, EachChangeSinceItWasCountedIsNamed) {
  Write("s.lua", "for i = 1, 100000 do end\n");
  fs::create_directory(Path("dir"));
  fs::create_symlink("s.lua", Path("ln"));
  const InputManifest m = Make({Record(InputRecord::Kind::kOpen, Path("s.lua")),
                                Record(InputRecord::Kind::kList, Path("dir")),
                                Record(InputRecord::Kind::kLinkMeta, Path("ln"), false),
                                Record(InputRecord::Kind::kOpen, Path("none"))});
  ASSERT_EQ(ManifestChange(m), "");

  Write("s.lua", "for i = 1, 900000 do end\n");
  EXPECT_EQ(ManifestChange(m), "the file " + Path("s.lua") + " changed since it was counted");
  Write("s.lua", "for i = 1, 100000 do end\n");  // back as it was: the digest matches
  EXPECT_EQ(ManifestChange(m), "");

  Write("dir/new.lua", "");
  EXPECT_EQ(ManifestChange(m),
            "the directory " + Path("dir") + " gained or lost entries since it was counted");
  fs::remove(Path("dir/new.lua"));
  EXPECT_EQ(ManifestChange(m), "");

  fs::remove(Path("ln"));
  fs::create_symlink("other.lua", Path("ln"));
  EXPECT_EQ(ManifestChange(m), Path("ln") + " is not what it was when counted (its type, size, "
                                            "time or target changed)");
  fs::remove(Path("ln"));
  fs::create_symlink("s.lua", Path("ln"));
  EXPECT_EQ(ManifestChange(m), "");

  Write("none", "");
  EXPECT_EQ(ManifestChange(m), Path("none") + " exists now; it did not when counted");
  fs::remove(Path("none"));
  fs::remove(Path("s.lua"));
  EXPECT_EQ(ManifestChange(m), "the file " + Path("s.lua") + " is gone since it was counted");
}

TEST_F(InputManifestTest, AFilesMetadataIsItsTypeSizeAndTime) {
  Write("meta.txt", "x");
  const InputManifest m = Make({Record(InputRecord::Kind::kMeta, Path("meta.txt"))});
  ASSERT_EQ(ManifestChange(m), "");
  Write("meta.txt", "xy");
  EXPECT_NE(ManifestChange(m).find(Path("meta.txt") + " is not what it was"), std::string::npos);
  Write("meta.txt", "x");
  // The same size, another time: Python, say, would not trust its bytecode.
  const timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, Path("meta.txt").c_str(), times, 0), 0);
  EXPECT_NE(ManifestChange(m).find(Path("meta.txt") + " is not what it was"), std::string::npos);
  fs::remove(Path("meta.txt"));
  fs::create_directory(Path("meta.txt"));
  EXPECT_NE(ManifestChange(m).find(Path("meta.txt") + " is not what it was"), std::string::npos);
}

TEST_F(InputManifestTest, EveryInputDocsStoreListsIsSeenToChange) {
  struct Item {
    std::string name;  // as docs/store.md's list of inputs names it
    std::function<InputRecord()> read;  // sets it up, and the program's read
    std::function<void()> change;
  };
  const std::vector<Item> items = {
      {"file content",
       [&] {
         Write("f", "1");
         return Record(InputRecord::Kind::kOpen, Path("f"));
       },
       [&] { Write("f", "2"); }},
      {"directory listing",
       [&] {
         fs::create_directory(Path("d"));
         return Record(InputRecord::Kind::kList, Path("d"));
       },
       [&] { Write("d/x", ""); }},
      {"path metadata",
       [&] {
         Write("m", "1");
         return Record(InputRecord::Kind::kMeta, Path("m"));
       },
       [&] {
         const timespec times[2] = {{0, UTIME_OMIT}, {1000, 0}};
         utimensat(AT_FDCWD, Path("m").c_str(), times, 0);
       }},
      {"link target",
       [&] {
         fs::create_symlink("f", Path("l"));
         return Record(InputRecord::Kind::kLinkMeta, Path("l"), false);
       },
       [&] {
         fs::remove(Path("l"));
         fs::create_symlink("g", Path("l"));
       }},
      {"missing path", [&] { return Record(InputRecord::Kind::kOpen, Path("none")); },
       [&] { Write("none", ""); }},
      {"failed access",
       [&] {
         fs::create_symlink(Path("loop"), Path("loop"));
         return Record(InputRecord::Kind::kOpen, Path("loop"));
       },
       [&] {
         fs::remove(Path("loop"));
         fs::create_directory(Path("loop"));
       }},
  };
  std::set<std::string> names;
  for (const Item& item : items) {
    names.insert(item.name);
    const InputManifest m = Make({item.read()});
    ASSERT_EQ(m.entries.size(), 1u) << item.name;
    ASSERT_EQ(ManifestChange(m), "") << item.name;
    item.change();
    EXPECT_NE(ManifestChange(m), "") << item.name;
  }
  EXPECT_EQ(names, testing::DocumentedItems("docs/store.md", "input-kinds"));
}

TEST_F(InputManifestTest, AReadlinkOfWhatIsNoLinkKeepsWhatItIs) {
  Write("plain", "x");
  InputRecord r;
  r.kind = InputRecord::Kind::kLinkMeta;
  r.state = InputRecord::State::kError;
  r.error = EINVAL;
  r.path = Path("plain");
  const InputManifest m = Make({r});
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].kind, ManifestEntry::Kind::kMeta);
  EXPECT_EQ(m.entries[0].type, "file");
  EXPECT_FALSE(m.entries[0].follow);
  EXPECT_EQ(ManifestChange(m), "");
  fs::remove(Path("plain"));
  fs::create_symlink("elsewhere", Path("plain"));
  EXPECT_NE(ManifestChange(m), "");
}

TEST_F(InputManifestTest, AnErrorIsKeptAsTheErrorItWas) {
  // A loop of links: ELOOP, whoever asks.
  fs::create_symlink(Path("b"), Path("a"));
  fs::create_symlink(Path("a"), Path("b"));
  const InputManifest m = Make({Record(InputRecord::Kind::kOpen, Path("a"))});
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].kind, ManifestEntry::Kind::kError);
  EXPECT_EQ(m.entries[0].error, ELOOP);
  EXPECT_EQ(ManifestChange(m), "");
  fs::remove(Path("b"));
  Write("b", "now a file");
  EXPECT_NE(ManifestChange(m).find("can be reached differently since it was counted"),
            std::string::npos);
}

TEST_F(InputManifestTest, TheStoredFormComesBackAndIsReadStrictly) {
  Write("f", "content");
  fs::create_directory(Path("d"));
  const InputManifest m = Make({Record(InputRecord::Kind::kOpen, Path("f")),
                                Record(InputRecord::Kind::kList, Path("d")),
                                Record(InputRecord::Kind::kMeta, Path("d")),
                                Record(InputRecord::Kind::kOpen, Path("nothing"))});
  InputManifest back;
  std::string why;
  ASSERT_TRUE(ParseManifestJson(ManifestJson(m), &back, &why)) << why;
  EXPECT_EQ(back, m);

  for (const char* bad : {
           "", "[]", R"({"version":2,"made_at_ns":0,"entries":[]})",
           R"({"version":1,"made_at_ns":0,"entries":[],"extra":1})",
           R"({"version":1,"made_at_ns":0,"entries":[{"kind":"missing","path":"rel","follow":true}]})",
           R"({"version":1,"made_at_ns":0,"entries":[{"kind":"other","path":"/a"}]})",
           R"({"version":1,"made_at_ns":0,"entries":[{"kind":"missing","path":"/a"}]})",
           R"({"version":1,"made_at_ns":0,"entries":[{"kind":"missing","path":"/a","follow":true,"x":1}]})",
           R"({"version":1,"made_at_ns":0,"entries":[{"kind":"listing","path":"/a","sha256":"00"}]})",
           R"({"version":1,"made_at_ns":0,"entries":[{"kind":"error","path":"/a","op":"exec","errno":2}]})",
           R"({"version":1,"made_at_ns":0,"entries":[{"kind":"error","path":"/a","op":"open","errno":0}]})",
       }) {
    EXPECT_FALSE(ParseManifestJson(bad, &back, &why)) << bad;
  }
}

TEST_F(InputManifestTest, TheDigestHoldsTheInputsNotWhenOrWhereTheyWereSeen) {
  Write("f", "content");
  const InputManifest a = Make({Record(InputRecord::Kind::kOpen, Path("f"))});
  InputManifest b = a;
  b.made_at_ns += 1000;
  b.entries[0].ctime_ns += 1;
  b.entries[0].ino += 1;
  EXPECT_EQ(ManifestDigest(a), ManifestDigest(b));
  b.entries[0].sha256 = Sha256Hex("other");
  EXPECT_NE(ManifestDigest(a), ManifestDigest(b));
  EXPECT_NE(ManifestDigest(a), ManifestDigest(InputManifest{}));
}

}  // namespace
}  // namespace workgate
