// The options of the result store (store/result_store.h), shared by the
// commands that count and by `history`.

#include <fmt/format.h>

#include "cli/options.h"
#include "identity/count_key.h"
#include "measure/stability_runs.h"
#include "store/result_store.h"
#include "store/store_files.h"
#include "util/error.h"
#include "util/text.h"

namespace workgate {

CLI::Option* RegisterStorePath(CLI::App* cmd, std::string* path) {
  return cmd
      ->add_option("--store", *path,
                   "The result store, an SQLite file [default: $XDG_CACHE_HOME/workgate/"
                   "results.sqlite3, else ~/.cache/workgate/results.sqlite3]")
      ->type_name("FILE");
}

void StoreArgs::Register(CLI::App* cmd) {
  auto* store = RegisterStorePath(cmd, &path);
  auto* no_store =
      cmd->add_flag("--no-store", none, "Neither read nor keep anything in the result store");
  no_store->excludes(store);
}

void RefuseNotAStore(const std::string& path) {
  if (path.empty()) return;
  if (std::string what = NotAStoreFile(path); !what.empty()) {
    throw UsageError(fmt::format(
        "--store {}: {}; workgate leaves it as it is: name a workgate store, or a path where "
        "none exists yet",
        path, what));
  }
}

std::unique_ptr<ResultStore> StoreArgs::Open(std::vector<std::string>* notes) const {
  if (none) return nullptr;
  std::string why;
  const std::string at = path.empty() ? DefaultStorePath(&why) : path;
  if (at.empty()) {
    notes->push_back("no result store: " + why);
    return nullptr;
  }
  // A file named with --store that is no workgate store is the user's
  // mistake, refused before anything runs; at the default path it is only
  // not used (a store never fails a gate).
  RefuseNotAStore(path);
  std::string err;
  std::unique_ptr<ResultStore> store = ResultStore::Open(at, notes, &err);
  if (!store) notes->push_back(fmt::format("the result store is not used: {}", err));
  return store;
}

std::unique_ptr<ResultStore> StoreArgs::OpenForCounting(const Counter& counter,
                                                         const std::string& record,
                                                         std::optional<CountCache>* cache,
                                                         std::vector<std::string>* notes) const {
  std::unique_ptr<ResultStore> store = Open(notes);
  if (!store) {
    if (!record.empty()) {
      throw EnvironmentError("--record " + record + " needs the result store, and " +
                             (notes->empty() ? std::string("there is none") : notes->back()));
    }
    return store;
  }
  if (!IsExactBackend(counter.name())) return store;
  CountContext context;
  std::string err;
  if (MakeCountContext(counter, &context, &err)) {
    cache->emplace(store.get(), context);
  } else {
    notes->push_back("counts are neither taken from the result store nor kept: " + err);
  }
  return store;
}

void StoreArgs::CheckRecord(const std::string& record) const {
  if (!record.empty() && none) {
    throw UsageError("--record keeps results in the result store: it cannot go with --no-store");
  }
}

CLI::Option* RegisterRecord(CLI::App* cmd, std::string* ref, const std::string& what) {
  return cmd
      ->add_option("--record", *ref,
                   fmt::format("Record {} in the result store's history under REF (a commit or "
                               "label); on Valgrind it is counted twice, so its stored counts say "
                               "whether it repeats",
                               what))
      ->type_name("REF")
      ->check([](const std::string& value) -> std::string {
        if (value.empty() || value.size() > 256) return "a REF of 1 to 256 characters";
        for (unsigned char c : value) {
          if (c < 0x20 || c == 0x7f) return "a REF without control characters";
        }
        return "";
      });
}

std::string RecordSubject(std::string_view text) {
  std::string valid = ValidUtf8(text);
  for (size_t i = 0; i < valid.size(); ++i) {
    const auto byte = static_cast<unsigned char>(valid[i]);
    if (byte < 0x20 || byte == 0x7f) valid[i] = ' ';
    // U+0080 to U+009F, the C1 controls, are C2 80 to C2 9F in UTF-8.
    const bool c1 =
        byte == 0xc2 && i + 1 < valid.size() && static_cast<unsigned char>(valid[i + 1]) <= 0x9f;
    if (c1) valid.replace(i, 2, " ");
  }
  return CutText(valid, kMaxRecordSubject);
}

void RegisterRecordSubject(CLI::App* cmd, std::optional<std::string>* subject,
                           CLI::Option* record) {
  cmd->add_option_function<std::string>(
         "--record-subject", [subject](const std::string& text) { *subject = RecordSubject(text); },
         fmt::format("With --record: the commit's subject, shown by history (control characters "
                     "become spaces; at most {} characters)",
                     kMaxRecordSubject))
      ->type_name("SUBJECT")
      ->needs(record);
}

}  // namespace workgate
