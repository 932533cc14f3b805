#pragma once
// Reading back a JSON document workgate wrote, from a copy that may have been
// changed on the way (a CI artifact, another runner's probe): every field the
// writer writes is required, with its type and range, and a field it never
// writes is an error, so that what is read is exactly what a workgate run
// could have said. The readers of compare reports (report/report_reader.h)
// and probes (report/probe_table.h) are built on it.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace workgate {

/// The fields of one JSON object. Each getter reads one required field into
/// `*out` and returns true, or records why not in `*err` and returns false;
/// once a problem is recorded, every later call returns false and changes
/// nothing, so a reader may chain its calls with `&&`. A problem names the
/// field by its path: "workloads[2].baseline.counts must be a list".
class JsonFields {
 public:
  /// `where` is the object's path ("" for the whole document). `j` must
  /// outlive the reader. Records a problem at once unless `j` is an object.
  JsonFields(const nlohmann::json& j, std::string where, std::string* err);

  bool ok() const { return ok_; }
  /// The path of `key` in this object, for a nested reader.
  std::string Path(const std::string& key) const;
  /// Records `problem` about the field `key` (or the object, for "").
  bool Fail(const std::string& key, const std::string& problem);

  bool String(const char* key, std::string* out);
  bool StringOrNull(const char* key, std::optional<std::string>* out);
  /// A string, or null read as "".
  bool StringOrNull(const char* key, std::string* out);
  bool Bool(const char* key, bool* out);
  bool BoolOrNull(const char* key, std::optional<bool>* out);
  /// An integer in [lo, hi].
  bool Int(const char* key, int64_t lo, int64_t hi, int64_t* out);
  bool Int(const char* key, int lo, int hi, int* out);
  bool Uint(const char* key, uint64_t* out);
  bool UintOrNull(const char* key, std::optional<uint64_t>* out);
  bool IntOrNull(const char* key, std::optional<int64_t>* out);
  /// Any JSON number (JSON has no NaN or infinity).
  bool Number(const char* key, double* out);
  bool NumberOrNull(const char* key, std::optional<double>* out);
  /// A list of at most `most` strings.
  bool Strings(const char* key, size_t most, std::vector<std::string>* out);
  /// The field's value: an object (or null, read as nullptr, when
  /// `nullable`). nullptr after a problem too: check ok().
  const nlohmann::json* Object(const char* key, bool nullable);
  /// The field's value, a list of at most `most` items; nullptr after a problem.
  const nlohmann::json* Array(const char* key, size_t most);
  /// Any value, read as it is (a map of names the reader checks itself).
  const nlohmann::json* Any(const char* key);
  /// True when every field of the object was read; else records the first
  /// that was not ("... is not a field workgate writes").
  bool Done();

 private:
  // The field, marked as read; nullptr (with a problem) when it is missing.
  const nlohmann::json* Find(const char* key);
  bool Type(const char* key, const nlohmann::json* v, bool good, const char* what);

  const nlohmann::json& j_;
  std::string where_;
  std::string* err_;
  bool ok_ = true;
  std::set<std::string> read_;
};

/// The path of item `i` of the list at `where`: "workloads[2]".
std::string ItemPath(const std::string& where, size_t i);

}  // namespace workgate
