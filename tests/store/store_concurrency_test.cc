// Several workgate processes on one store at once (--jobs, or two CI jobs on
// one runner), and several threads on one ResultStore: every count and
// record each of them adds is there afterwards, and no call fails.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <thread>

#include "store/result_store.h"
#include "store/store_test_util.h"

namespace workgate {
namespace {

using testing_store::Key;
using testing_store::MakeEntry;
using testing_store::MakeRecord;

constexpr int kWorkers = 4;
constexpr int kRounds = 60;  // each round is three write transactions

// What worker `w` does: in each round, a count added to the key all workers
// share and one to its own key, and a history record; then it reads its own
// key back. "" when every call succeeded, else the first error.
std::string Work(ResultStore& store, int w) {
  std::string err;
  for (int i = 0; i < kRounds; ++i) {
    const uint64_t count = 1000 * w + i;
    if (!store.Add(Key(0), MakeEntry({count}, "worker " + std::to_string(w)), &err) ||
        !store.Add(Key(1 + w), MakeEntry({count}), &err) ||
        !store.Record({MakeRecord("r" + std::to_string(i), "w" + std::to_string(w),
                                  "2026-12-01T00:00:00Z", {count})},
                      &err)) {
      return err.empty() ? "failed without a message" : err;
    }
    std::optional<StoredCount> found;
    std::string note;
    if (!store.Find(Key(1 + w), &found, &note, &err)) return err;
    if (!found || found->counts.size() != static_cast<size_t>(i + 1) || !note.empty()) {
      return "worker " + std::to_string(w) + " does not find its own counts: " + note;
    }
  }
  return "";
}

class ResultStoreConcurrencyTest : public testing_store::StoreTest {
 protected:
  // Everything all workers added is in `store`.
  void ExpectEverything(ResultStore& store);
};

void ResultStoreConcurrencyTest::ExpectEverything(ResultStore& store) {
  const std::optional<StoredCount> shared_entry = Find(store, Key(0));
  ASSERT_TRUE(shared_entry.has_value());
  std::vector<uint64_t> shared = shared_entry->counts;
  std::sort(shared.begin(), shared.end());
  std::vector<uint64_t> want;
  for (int w = 0; w < kWorkers; ++w) {
    std::vector<uint64_t> own;
    for (int i = 0; i < kRounds; ++i) own.push_back(1000 * w + i);
    want.insert(want.end(), own.begin(), own.end());
    // One writer per key: its counts in the order it added them.
    const std::optional<StoredCount> own_entry = Find(store, Key(1 + w));
    ASSERT_TRUE(own_entry.has_value()) << "worker " << w;
    EXPECT_EQ(own_entry->counts, own) << "worker " << w;
    const std::vector<HistoryRecord> history = ReadHistory(store, {"w" + std::to_string(w)});
    ASSERT_EQ(history.size(), static_cast<size_t>(kRounds)) << "worker " << w;
    for (int i = 0; i < kRounds; ++i) EXPECT_EQ(history[i].ref, "r" + std::to_string(i));
  }
  EXPECT_EQ(shared, want);
}

TEST_F(ResultStoreConcurrencyTest, SeveralProcessesAddToOneNewStoreAtOnce) {
  // The workers start together, on a store none of them has made yet.
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  std::vector<pid_t> workers;
  for (int w = 0; w < kWorkers; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(go[1]);
      char c;
      (void)!read(go[0], &c, 1);
      std::vector<std::string> notes;
      std::string err;
      std::unique_ptr<ResultStore> store = ResultStore::Open(path_, &notes, &err);
      if (store != nullptr) err = notes.empty() ? Work(*store, w) : notes[0];
      if (!err.empty()) std::fprintf(stderr, "worker %d: %s\n", w, err.c_str());
      store.reset();
      _exit(err.empty() ? 0 : 1);
    }
    workers.push_back(pid);
  }
  close(go[0]);
  close(go[1]);  // every worker's read returns now
  for (pid_t pid : workers) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a worker failed (stderr)";
  }
  ExpectEverything(*OpenStore());
}

TEST_F(ResultStoreConcurrencyTest, SeveralThreadsShareOneStore) {
  auto store = OpenStore();
  std::vector<std::string> errors(kWorkers);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] { errors[w] = Work(*store, w); });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  ExpectEverything(*store);
}

}  // namespace
}  // namespace workgate
