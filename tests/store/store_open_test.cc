// Opening the store on whatever file is at its path: nothing, an empty
// file, garbage, a damaged database, someone else's database, a newer or
// an older store, a file that cannot be written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "store/result_store.h"
#include "store/store_test_util.h"
#include "util/paths.h"

namespace workgate {
namespace {

namespace fs = std::filesystem;
using testing_store::FileBytes;
using testing_store::Key;
using testing_store::MakeEntry;
using testing_store::RawDb;

class ResultStoreOpenTest : public testing_store::StoreTest {
 protected:
  void SetUp() override { fs::create_directories(fs::path(path_).parent_path()); }

  void Write(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  /// The databases beside the store whose names say they were moved aside
  /// (their -wal and -shm files left out).
  std::vector<std::string> MovedAside() {
    std::vector<std::string> moved;
    for (const auto& e : fs::directory_iterator(fs::path(path_).parent_path())) {
      const std::string name = e.path().string();
      if (name.find(".corrupt-") != std::string::npos && !name.ends_with("-wal") &&
          !name.ends_with("-shm")) {
        moved.push_back(name);
      }
    }
    std::sort(moved.begin(), moved.end());
    return moved;
  }

  /// Makes a store of 200 entries (each value 1000000 * k + i), then
  /// overwrites one leaf page of count_cache's b-tree from the middle of the
  /// file; `*damaged_bytes` (unless null) is the file as damaged.
  void MakeStoreWithADamagedPage(std::string* damaged_bytes);

  /// Opens the store, which must find the file at the path damaged, move it
  /// aside (`*moved`, holding `bytes`) and say so in one note (`*note`) that
  /// names both paths.
  void OpenMovingAside(const std::string& bytes, std::unique_ptr<ResultStore>* store,
                       std::string* moved, std::string* note = nullptr) {
    std::vector<std::string> notes;
    std::string err;
    *store = ResultStore::Open(path_, &notes, &err);
    ASSERT_NE(*store, nullptr) << err;
    const std::vector<std::string> aside = MovedAside();
    ASSERT_EQ(aside.size(), 1u);
    ASSERT_EQ(notes.size(), 1u);
    *moved = aside[0];
    EXPECT_NE(notes[0].find(path_ + " "), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find(*moved), std::string::npos) << notes[0];
    EXPECT_TRUE(FileBytes(*moved) == bytes) << *moved << " is not the file that was at the path";
    if (note != nullptr) *note = notes[0];
  }

  /// Open must refuse the file and leave it byte for byte as it was;
  /// `*err` is why.
  void ExpectRefused(std::string* err) {
    const std::string before = FileBytes(path_);
    std::vector<std::string> notes;
    EXPECT_EQ(ResultStore::Open(path_, &notes, err), nullptr);
    EXPECT_NE(err->find(path_), std::string::npos) << *err;
    EXPECT_TRUE(FileBytes(path_) == before) << path_ << " was changed";
    EXPECT_FALSE(fs::exists(path_ + "-wal"));
    EXPECT_TRUE(MovedAside().empty());
  }
};

TEST_F(ResultStoreOpenTest, AnEmptyFileIsANewStore) {
  Write(path_, "");
  auto store = OpenStore();
  Add(*store, Key(1), MakeEntry({3}));
  EXPECT_EQ(Find(*store, Key(1))->counts, std::vector<uint64_t>{3});
  EXPECT_EQ(RawDb(path_).Text("PRAGMA application_id"), std::to_string(kStoreApplicationId));
  EXPECT_EQ(RawDb(path_).Text("PRAGMA journal_mode"), "wal");
}

TEST_F(ResultStoreOpenTest, AFileThatIsNoDatabaseIsLeftAsItIs) {
  std::string garbage;
  while (garbage.size() < 8192) garbage += "this is not an SQLite database\n";
  Write(path_, garbage);
  std::string err;
  ExpectRefused(&err);
  EXPECT_NE(err.find("it is not an SQLite database"), std::string::npos) << err;
  // Nor is a file shorter than SQLite's header, whatever it starts with.
  Write(path_, "SQLite format 3");
  ExpectRefused(&err);
  EXPECT_NE(err.find("it is not an SQLite database (15 bytes"), std::string::npos) << err;
}

// SQLite's header with workgate's application_id (offset 68), and garbage
// where the page size and everything else should be.
std::string MarkedGarbage() {
  std::string bytes(8192, 'x');
  bytes.replace(0, 16, std::string("SQLite format 3\0", 16));
  bytes.replace(68, 4, "wgat");  // kStoreApplicationId, big-endian
  return bytes;
}

TEST_F(ResultStoreOpenTest, ADamagedFileMarkedAsAStoreIsMovedAside) {
  const std::string garbage = MarkedGarbage();
  Write(path_, garbage);
  Write(path_ + "-wal", "nor is this a WAL");
  std::unique_ptr<ResultStore> store;
  std::string moved;
  ASSERT_NO_FATAL_FAILURE(OpenMovingAside(garbage, &store, &moved));
  EXPECT_EQ(FileBytes(moved + "-wal"), "nor is this a WAL");
  // The new store at the path works, and is no longer news.
  Add(*store, Key(1), MakeEntry({3}));
  EXPECT_EQ(Find(*store, Key(1))->counts, std::vector<uint64_t>{3});
  store.reset();
  EXPECT_EQ(Find(*OpenStore(), Key(1))->counts, std::vector<uint64_t>{3});
}

void ResultStoreOpenTest::MakeStoreWithADamagedPage(std::string* damaged_bytes) {
  std::vector<uint64_t> counts(200);
  {
    auto store = OpenStore();
    for (int k = 0; k < 200; ++k) {
      for (size_t i = 0; i < counts.size(); ++i) counts[i] = 1000000 * k + i;
      Add(*store, Key(k), MakeEntry(counts));
    }
  }
  // The last connection has closed: the WAL is in the file and gone.
  ASSERT_FALSE(fs::exists(path_ + "-wal"));
  size_t page_size = 0;
  std::set<int64_t> other_roots;
  {
    RawDb raw(path_);
    page_size = std::stoul(raw.Text("PRAGMA page_size"));
    sqlite::Statement roots(raw.get(), "SELECT rootpage FROM sqlite_master WHERE name != ?1");
    roots.BindText(1, "count_cache");
    sqlite::SqlError e;
    for (bool row = true; roots.Step(&row, &e) && row;) other_roots.insert(roots.Int(0));
  }
  // A leaf page of count_cache's b-tree (type 0x0D, a table leaf, and no
  // other table's root) from the middle of the file, overwritten.
  std::string bytes = FileBytes(path_);
  std::vector<size_t> leaves;
  for (size_t page = 2; page * page_size <= bytes.size(); ++page) {
    if (bytes[(page - 1) * page_size] == 0x0D && !other_roots.count(page)) leaves.push_back(page);
  }
  ASSERT_GT(leaves.size(), 10u);
  const size_t damaged = leaves[leaves.size() / 2];
  bytes.replace((damaged - 1) * page_size, page_size, page_size, '\xa5');
  Write(path_, bytes);
  if (damaged_bytes != nullptr) *damaged_bytes = bytes;
}

TEST_F(ResultStoreOpenTest, ADamagedPageIsFoundAndTheFileMovedAside) {
  std::string bytes;
  ASSERT_NO_FATAL_FAILURE(MakeStoreWithADamagedPage(&bytes));
  std::vector<std::string> notes;
  std::string err;
  auto store = ResultStore::Open(path_, &notes, &err);
  ASSERT_NE(store, nullptr) << err;
  std::string failure = notes.empty() ? "" : notes[0];
  for (int k = 0; k < 200 && failure.empty(); ++k) {
    std::optional<StoredCount> found;
    std::string note;
    if (!store->Find(Key(k), &found, &note, &err)) {
      failure = err;
    } else if (found) {
      // What comes back is what went in, never a damaged value.
      ASSERT_EQ(found->counts.size(), 200u);
      EXPECT_EQ(found->counts[7], 1000000u * k + 7);
    }
  }
  ASSERT_NE(failure, "") << "the damaged page was never noticed";
  EXPECT_NE(failure.find("damaged"), std::string::npos) << failure;
  const std::vector<std::string> moved = MovedAside();
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_NE(failure.find(moved[0]), std::string::npos) << failure;
  EXPECT_TRUE(FileBytes(moved[0]) == bytes) << moved[0] << " is not the damaged file";
  if (notes.empty()) {
    // Found at a read: the store is broken from then on.
    std::optional<StoredCount> found;
    std::string note, again;
    EXPECT_FALSE(store->Find(Key(0), &found, &note, &again));
    EXPECT_EQ(again, failure);
    store.reset();
    EXPECT_FALSE(Find(*OpenStore(), Key(0)).has_value());  // a new, empty store
  }
}

TEST_F(ResultStoreOpenTest, AStoreToMigrateIsCheckedFirst) {
  ASSERT_NO_FATAL_FAILURE(MakeStoreWithADamagedPage(nullptr));
  // As a version-1 store it must be migrated, which rewrites tables:
  // PRAGMA quick_check reads every page first.
  RawDb(path_).Exec("PRAGMA user_version = 1");
  std::unique_ptr<ResultStore> store;
  std::string moved, note;
  ASSERT_NO_FATAL_FAILURE(OpenMovingAside(FileBytes(path_), &store, &moved, &note));
  EXPECT_NE(note.find("quick_check"), std::string::npos) << note;
  EXPECT_FALSE(Find(*store, Key(0)).has_value());
  EXPECT_EQ(RawDb(path_).Text("PRAGMA user_version"), std::to_string(kStoreSchemaVersion));
}

TEST_F(ResultStoreOpenTest, AnotherApplicationsDatabaseIsLeftAlone) {
  RawDb(path_).Exec("PRAGMA application_id = 42; CREATE TABLE t(x); INSERT INTO t VALUES(1)");
  std::string err;
  ExpectRefused(&err);
  EXPECT_NE(err.find("another application (application_id 0x0000002a"), std::string::npos) << err;
  // Without an application_id but with tables, it is no store of ours either.
  RawDb(path_).Exec("PRAGMA application_id = 0");
  ExpectRefused(&err);
  EXPECT_NE(err.find("another application (it has tables but no application_id"), std::string::npos)
      << err;
}

TEST_F(ResultStoreOpenTest, ANewerSchemaIsLeftAlone) {
  Add(*OpenStore(), Key(1), MakeEntry({1}));
  RawDb(path_).Exec("PRAGMA user_version = " + std::to_string(kStoreSchemaVersion + 1));
  std::string err;
  ExpectRefused(&err);
  EXPECT_NE(err.find("schema version " + std::to_string(kStoreSchemaVersion + 1) + " is newer"),
            std::string::npos)
      << err;
}

TEST_F(ResultStoreOpenTest, ADirectoryThatCannotBeMadeIsAnError) {
  const std::string file = dir_.path() + "/a-file";
  Write(file, "x");
  std::vector<std::string> notes;
  std::string err;
  EXPECT_EQ(ResultStore::Open(file + "/sub/results.sqlite3", &notes, &err), nullptr);
  EXPECT_NE(err.find(file + "/sub/results.sqlite3"), std::string::npos) << err;
  EXPECT_NE(err.find("cannot make the directory " + file), std::string::npos) << err;
}

TEST_F(ResultStoreOpenTest, AFileThatCannotBeWrittenIsAnError) {
  Add(*OpenStore(), Key(1), MakeEntry({1}));
  ASSERT_EQ(chmod(path_.c_str(), 0444), 0);
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  // root may write any file: a user who may not opens it, in a child.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(out[0]);
    if (geteuid() == 0) {
      for (const std::string& dir :
           {dir_.path(), dir_.path() + "/cache", dir_.path() + "/cache/workgate"}) {
        chmod(dir.c_str(), 0755);
      }
      if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    }
    if (access(path_.c_str(), R_OK) != 0) _exit(3);  // TMPDIR is out of its reach
    std::vector<std::string> notes;
    std::string err;
    const bool opened = ResultStore::Open(path_, &notes, &err) != nullptr;
    (void)!write(out[1], err.data(), err.size());
    _exit(opened ? 1 : 0);
  }
  close(out[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) err.append(buf, n);
  close(out[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "user 65534 cannot read " << path_;
  ASSERT_NE(WEXITSTATUS(status), 2) << "cannot become user 65534";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "opened a file it cannot write";
  EXPECT_NE(err.find(path_), std::string::npos) << err;
  EXPECT_NE(err.find("read-only"), std::string::npos) << err;
}

}  // namespace
}  // namespace workgate
