#include "store/store_codec.h"

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "util/sha256.h"
#include "util/text.h"

namespace workgate {
namespace {

// The canonical encoding a checksum covers: each field as its name, its
// length and its bytes, so no two different rows encode alike whatever
// bytes their texts hold.
class Canonical {
 public:
  explicit Canonical(std::string_view kind) { Field("kind", kind); }
  void Field(std::string_view name, std::string_view value) {
    fmt::format_to(std::back_inserter(out_), "{}={}:", name, value.size());
    out_.append(value);
    out_.push_back(';');
  }
  void Optional(std::string_view name, const std::optional<std::string>& value) {
    Field(name, value ? "1" : "0");
    if (value) Field(name, *value);
  }
  std::string Digest() const { return Sha256Hex(out_); }

 private:
  std::string out_;
};

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return !s.empty();
}

int Number(std::string_view s) {
  int n = 0;
  for (char c : s) n = n * 10 + (c - '0');
  return n;
}

std::string TooLong(std::string_view what, size_t size) {
  return fmt::format("its {} is {} bytes, more than {}", what, size, kMaxStoredTextBytes);
}

}  // namespace

bool IsStoreTimestamp(std::string_view t) {
  if (t.size() != 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' ||
      t[16] != ':' || t[19] != 'Z') {
    return false;
  }
  for (size_t at : {0, 5, 8, 11, 14, 17}) {
    if (!AllDigits(t.substr(at, at == 0 ? 4 : 2))) return false;
  }
  const std::chrono::year_month_day date{std::chrono::year(Number(t.substr(0, 4))),
                                         std::chrono::month(Number(t.substr(5, 2))),
                                         std::chrono::day(Number(t.substr(8, 2)))};
  return date.ok() && Number(t.substr(11, 2)) < 24 && Number(t.substr(14, 2)) < 60 &&
         Number(t.substr(17, 2)) < 60;
}

bool IsHexDigest(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string EncodeCounts(const std::vector<uint64_t>& counts) {
  return fmt::format("{}", fmt::join(counts, ","));
}

std::string EncodeSimulated(const std::optional<SimulatedEvents>& events) {
  if (!events) return "";
  return fmt::format("{},{}", events->instructions, fmt::join(events->costs, ","));
}

bool ParseSimulated(std::string_view text, std::optional<SimulatedEvents>* events,
                    std::string* why) {
  events->reset();
  if (text.empty()) return true;
  std::vector<uint64_t> numbers;
  if (!ParseCounts(text, &numbers, why) || numbers.size() != 1 + kSimulatedEventCount) {
    *why = "its simulated events are not the instructions and the twelve events";
    return false;
  }
  SimulatedEvents e;
  e.instructions = numbers[0];
  std::copy(numbers.begin() + 1, numbers.end(), e.costs.begin());
  *events = e;
  return true;
}

bool ParseCounts(std::string_view text, std::vector<uint64_t>* counts, std::string* why) {
  counts->clear();
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view digits = text.substr(0, comma);
    if (!AllDigits(digits)) {
      *why = "its counts are not a list of decimal numbers";
      return false;
    }
    uint64_t value = 0;
    for (char c : digits) {
      const uint64_t d = c - '0';
      if (value > (UINT64_MAX - d) / 10) {
        *why = "a count does not fit 64 bits";
        return false;
      }
      value = value * 10 + d;
    }
    if (counts->size() == kMaxStoredCounts) {
      *why = fmt::format("it holds more than {} counts", kMaxStoredCounts);
      return false;
    }
    counts->push_back(value);
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

std::string ProfilesDigest(const std::vector<std::pair<std::string, std::string>>& profiles) {
  Canonical c("profiles");
  for (const auto& [name, contents] : profiles) {
    c.Field("name", name);
    // Each file by its own digest: megabytes are hashed where they lie
    // rather than copied into the encoding first.
    c.Field("contents", Sha256Hex(contents));
  }
  return c.Digest();
}

std::string EntryChecksum(const std::string& key, const StoredCount& entry,
                          const std::string& profiles_digest) {
  Canonical c("workgate count cache entry 1");
  c.Field("key", key);
  c.Field("counts", EncodeCounts(entry.counts));
  c.Optional("score", entry.score);
  c.Field("profiles", profiles_digest);
  c.Field("counted_at", entry.counted_at);
  c.Field("ref", entry.ref);
  c.Field("label", entry.label);
  c.Field("workgate_version", entry.workgate_version);
  // Only when set: an entry from before the flag (store version 2) keeps
  // its checksum, and reads as not deterministic.
  if (entry.deterministic) c.Field("deterministic", "1");
  c.Field("inputs", entry.inputs);
  c.Field("inputs_sha256", entry.inputs_digest);
  // Only when set, like the flag: an entry from before store version 6
  // keeps its checksum.
  if (entry.simulated) c.Field("simulated", EncodeSimulated(entry.simulated));
  return c.Digest();
}

bool ProfilesFit(const std::vector<std::pair<std::string, std::string>>& profiles) {
  if (profiles.size() > kMaxStoredProfileFiles) return false;
  size_t total = 0;
  for (const auto& [name, contents] : profiles) {
    if (name.size() > kMaxStoredTextBytes) return false;
    total += contents.size();
  }
  return total <= kMaxStoredProfileBytes;
}

std::string EntryProblem(const StoredCount& entry) {
  if (entry.counts.empty()) return "it holds no count";
  if (entry.counts.size() > kMaxStoredCounts) {
    return fmt::format("it holds more than {} counts", kMaxStoredCounts);
  }
  if (!IsStoreTimestamp(entry.counted_at)) return "its time counted is not YYYY-MM-DDTHH:MM:SSZ";
  for (const auto& [what, text] : {std::pair<const char*, std::string_view>{"ref", entry.ref},
                                   {"label", entry.label},
                                   {"workgate version", entry.workgate_version}}) {
    if (text.size() > kMaxStoredTextBytes) return TooLong(what, text.size());
  }
  if (entry.score && entry.score->size() > kMaxStoredTextBytes) {
    return TooLong("score", entry.score->size());
  }
  if (entry.inputs.empty() || entry.inputs.size() > kMaxStoredInputsBytes) {
    return fmt::format("its input manifest is missing or beyond {} bytes", kMaxStoredInputsBytes);
  }
  if (!IsHexDigest(entry.inputs_digest)) return "its inputs digest is not a SHA-256";
  if (!ProfilesFit(entry.profiles)) {
    return fmt::format("its profiles exceed {} files, {} bytes in all or a name's bound",
                       kMaxStoredProfileFiles, kMaxStoredProfileBytes);
  }
  return "";
}

std::string ConditionPartsJson(const std::map<std::string, std::string>& parts) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : parts) j[name] = value;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool ParseConditionParts(std::string_view json, std::map<std::string, std::string>* parts,
                         std::string* why) {
  nlohmann::json doc;
  if (!ParseJsonText(json, &doc, why)) return false;
  if (!doc.is_object()) {
    *why = "its condition parts are not a JSON object";
    return false;
  }
  parts->clear();
  for (const auto& [name, value] : doc.items()) {
    if (!value.is_string()) {
      *why = "a condition part is not a string";
      return false;
    }
    (*parts)[name] = value.get<std::string>();
  }
  return true;
}

std::string HistoryChecksum(const HistoryRecord& r, std::string_view parts_json) {
  // 0.0 and -0.0 compare equal but differ in bits, and SQLite may store a
  // whole-numbered REAL as an integer: the encoding sees one zero.
  const double margin = r.max_work_added == 0 ? 0.0 : r.max_work_added;
  Canonical c("workgate history record 1");
  c.Field("ref", r.ref);
  c.Field("recorded_at", r.recorded_at);
  c.Field("workload", r.workload);
  c.Field("backend", r.backend);
  c.Field("event", r.event);
  c.Field("counts", EncodeCounts(r.counts));
  c.Field("max_work_added", fmt::format("{:016x}", std::bit_cast<uint64_t>(margin)));
  c.Optional("score", r.score);
  c.Field("conditions", r.conditions);
  c.Field("condition_parts", parts_json);
  // Appended only when there is one, so that a row recorded before subjects
  // keeps the checksum it was written with.
  if (r.subject) c.Field("subject", *r.subject);
  if (r.committed_at) c.Field("committed_at", *r.committed_at);
  return c.Digest();
}

std::string RecordProblem(const HistoryRecord& r, std::string_view parts_json) {
  if (r.counts.empty()) return "it holds no count";
  if (r.counts.size() > kMaxStoredCounts) {
    return fmt::format("it holds more than {} counts", kMaxStoredCounts);
  }
  if (!IsStoreTimestamp(r.recorded_at)) return "its time recorded is not YYYY-MM-DDTHH:MM:SSZ";
  if (r.committed_at && !IsStoreTimestamp(*r.committed_at)) {
    return "its commit date is not YYYY-MM-DDTHH:MM:SSZ";
  }
  if (!std::isfinite(r.max_work_added) || r.max_work_added < 0 || r.max_work_added > 10) {
    return "its max_work_added is not a number from 0 to 10";
  }
  for (const auto& [what, text] : {std::pair<const char*, std::string_view>{"ref", r.ref},
                                   {"workload", r.workload},
                                   {"backend", r.backend},
                                   {"event", r.event},
                                   {"conditions", r.conditions},
                                   {"condition parts", parts_json}}) {
    if (text.size() > kMaxStoredTextBytes) return TooLong(what, text.size());
  }
  if (r.score && r.score->size() > kMaxStoredTextBytes) return TooLong("score", r.score->size());
  if (r.subject && r.subject->size() > kMaxStoredTextBytes) {
    return TooLong("subject", r.subject->size());
  }
  return "";
}

std::string NoteText(std::string_view text) {
  constexpr size_t kShown = 80;
  std::string shown = TerminalSafe(text.substr(0, kShown), LineBreaks::kToSpace);
  if (text.size() > kShown) shown += "...";
  return shown;
}

}  // namespace workgate
