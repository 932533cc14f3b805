#include "decision/baseline_file.h"

#include <errno.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "identity/fingerprint.h"
#include "model/model_json.h"
#include "util/atomic_file.h"
#include "util/compression.h"
#include "util/input_file.h"
#include "util/paths.h"
#include "util/text.h"

namespace workgate {
namespace {

using nlohmann::json;

constexpr char kFormat[] = "workgate-baseline";

// The longest path a stored profile names: Linux's PATH_MAX.
constexpr size_t kMaxPathBytes = 4096;

// A stored profile's fields, their form checked; its files stay
// compressed (measure/profile_pack.h unpacks and checks them).
bool ProfileFromJson(const json& j, const std::string& where, PackedProfile* p, std::string* err) {
  if (!j.is_object()) {
    *err = where + " must be an object or null";
    return false;
  }
  for (const auto& [key, out] :
       {std::pair{"profiler", &p->profiler}, std::pair{"object", &p->object},
        std::pair{"ran", &p->ran}, std::pair{"build", &p->build}}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string() || it->get<std::string>().size() > kMaxPathBytes) {
      *err = where + "." + key + " must be a string of at most " + std::to_string(kMaxPathBytes) +
             " bytes";
      return false;
    }
    *out = it->get<std::string>();
  }
  if (p->profiler != "vgcount" && p->profiler != "callgrind") {
    *err = where + ".profiler must be vgcount or callgrind";
    return false;
  }
  if (!PlainFileName(p->object)) {
    *err = where + ".object must be a plain file name";
    return false;
  }
  auto total = j.find("total");
  if (total == j.end() || !total->is_number_unsigned() || total->get<uint64_t>() > kMaxCount) {
    *err = where + ".total must be a count";
    return false;
  }
  p->total = total->get<uint64_t>();
  auto files = j.find("files");
  if (files == j.end() || !files->is_array() || files->empty()) {
    *err = where + ".files must be a non-empty list";
    return false;
  }
  for (size_t i = 0; i < files->size(); ++i) {
    const json& f = (*files)[i];
    const std::string at = where + ".files[" + std::to_string(i) + "]";
    auto name = f.is_object() ? f.find("name") : f.end();
    auto data = f.is_object() ? f.find("gzip_base64") : f.end();
    if (!f.is_object() || name == f.end() || !name->is_string() ||
        !PlainFileName(name->get<std::string>()) || data == f.end() || !data->is_string()) {
      *err = at + " must have a plain file name and gzip_base64 text";
      return false;
    }
    std::string gz, why;
    if (!Base64Decode(data->get<std::string>(), &gz, &why)) {
      *err = at + ".gzip_base64 is " + why;
      return false;
    }
    p->gzip_files.emplace_back(name->get<std::string>(), std::move(gz));
  }
  return true;
}

bool WorkloadFromJson(const json& j, const std::string& where, StoredWorkload* w,
                      std::string* err) {
  if (!j.is_object()) {
    *err = where + " must be an object";
    return false;
  }
  auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty()) {
    *err = where + ".name must be a non-empty string";
    return false;
  }
  w->name = name->get<std::string>();
  auto counts = j.find("counts");
  if (counts == j.end()) {
    *err = where + ".counts is missing";
    return false;
  }
  if (!CountsFromJson(*counts, where + ".counts", &w->counts, err)) return false;
  if (w->counts.empty()) {
    *err = where + ".counts is empty";
    return false;
  }
  auto score = j.find("score");
  if (score != j.end() && !score->is_null()) {
    if (!score->is_string()) {
      *err = where + ".score must be a string or null";
      return false;
    }
    w->score = score->get<std::string>();
  }
  auto fp = j.find("fingerprint");
  if (fp == j.end()) {
    *err = where + ".fingerprint is missing";
    return false;
  }
  if (!FingerprintFromJson(*fp, where + ".fingerprint", &w->fingerprint, err)) return false;
  auto profile = j.find("profile");
  if (profile != j.end() && !profile->is_null()) {
    w->profile.emplace();
    return ProfileFromJson(*profile, where + ".profile", &*w->profile, err);
  }
  auto no_profile = j.find("no_profile");
  if (no_profile != j.end()) {
    if (!no_profile->is_string() || no_profile->get<std::string>().size() > kMaxNoProfileBytes) {
      *err = where + ".no_profile must be a string of at most " +
             std::to_string(kMaxNoProfileBytes) + " bytes";
      return false;
    }
    w->no_profile = no_profile->get<std::string>();
  }
  return true;
}

json ProfileToJson(const PackedProfile& p) {
  json files = json::array();
  for (const auto& [name, gz] : p.gzip_files) {
    files.push_back({{"name", name}, {"gzip_base64", Base64Encode(gz)}});
  }
  return {{"profiler", p.profiler}, {"object", p.object}, {"ran", p.ran},
          {"build", p.build},       {"total", p.total},   {"files", files}};
}

}  // namespace

const StoredWorkload* BaselineFile::Find(const std::string& name) const {
  for (const StoredWorkload& w : workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::optional<BaselineFile> BaselineFromResults(const std::vector<WorkloadResult>& workloads,
                                                bool candidate_side,
                                                const std::string& workgate_version,
                                                const std::string& label, std::string* err) {
  BaselineFile file;
  file.workgate_version = workgate_version;
  file.label = label;
  const char* side_name = candidate_side ? "candidate" : "baseline";
  for (const WorkloadResult& w : workloads) {
    const SideResult& side = candidate_side ? w.candidate : w.baseline;
    if (!side.error.empty() || side.counts.empty()) {
      *err = "cannot save a baseline: workload " + w.name + ": the " + side_name + " has " +
             (side.error.empty() ? "no instruction count" : "an error: " + side.error);
      return std::nullopt;
    }
    file.workloads.push_back(
        {w.name, side.counts, side.score, side.fingerprint, side.profile, side.no_profile});
  }
  return file;
}

bool SaveBaselineFile(const std::string& path, const BaselineFile& file, std::string* err) {
  json workloads = json::array();
  for (const StoredWorkload& w : file.workloads) {
    json stored = {{"name", w.name},
                   {"counts", w.counts},
                   {"score", w.score ? json(*w.score) : json(nullptr)},
                   {"fingerprint", FingerprintToJson(w.fingerprint)},
                   {"profile", w.profile ? ProfileToJson(*w.profile) : json(nullptr)}};
    if (!w.profile) stored["no_profile"] = CutText(w.no_profile, kMaxNoProfileBytes / 4 - 1);
    workloads.push_back(std::move(stored));
  }
  json doc = {{"format", kFormat},
              {"schema_version", file.schema_version},
              {"workgate_version", file.workgate_version},
              {"label", file.label},
              {"workloads", workloads}};
  if (!WriteFileAtomically(path, JsonText(doc), err)) {
    *err = "cannot save baseline file: " + *err;
    return false;
  }
  return true;
}

std::optional<BaselineFile> LoadBaselineFile(const std::string& path, std::string* err) {
  std::string text;
  if (!ReadInputFile(path, "the stored baseline", kMaxBaselineBytes, &text, err)) {
    return std::nullopt;
  }
  return ParseBaselineFile(text, path, err);
}

std::optional<BaselineFile> ParseBaselineFile(std::string_view text, const std::string& path,
                                              std::string* err) {
  const std::string file_is = "the stored baseline " + path + " ";
  json doc;
  if (std::string why; !ParseJsonText(text, &doc, &why)) {
    *err = file_is + "is corrupt: " + why;
    return std::nullopt;
  }
  if (!doc.is_object() || doc.value("format", json()) != kFormat) {
    *err = file_is + "is not a workgate baseline (no \"format\": \"" + kFormat + "\")";
    return std::nullopt;
  }
  auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer()) {
    *err = file_is + "is corrupt: it has no integer schema_version";
    return std::nullopt;
  }
  // Compared as JSON, not through get<int>(), which would wrap a huge number.
  if (*version != kBaselineSchemaVersion) {
    *err = file_is + "has schema_version " + version->dump() + "; this workgate reads version " +
           std::to_string(kBaselineSchemaVersion) + " (save the baseline again)";
    return std::nullopt;
  }
  BaselineFile file;
  const std::string corrupt = file_is + "is corrupt: ";
  for (const auto& [key, out] :
       {std::pair{"workgate_version", &file.workgate_version}, std::pair{"label", &file.label}}) {
    auto it = doc.find(key);
    if (it != doc.end() && !it->is_string()) {
      *err = corrupt + key + " must be a string";
      return std::nullopt;
    }
    if (it != doc.end()) *out = it->get<std::string>();
  }
  auto workloads = doc.find("workloads");
  if (workloads == doc.end() || !workloads->is_array()) {
    *err = corrupt + "workloads must be a list";
    return std::nullopt;
  }
  for (size_t i = 0; i < workloads->size(); ++i) {
    StoredWorkload w;
    std::string why;
    if (!WorkloadFromJson((*workloads)[i], "workloads[" + std::to_string(i) + "]", &w, &why)) {
      *err = corrupt + why;
      return std::nullopt;
    }
    if (file.Find(w.name)) {
      *err = corrupt + "workload " + w.name + " appears twice";
      return std::nullopt;
    }
    file.workloads.push_back(std::move(w));
  }
  return file;
}

BaselineFile UnusableBaseline(const std::string& error, bool missing) {
  BaselineFile file;
  file.error = error;
  file.missing = missing;
  return file;
}

BaselineFile LoadBaselineForComparison(const std::string& path) {
  std::string err;
  std::optional<BaselineFile> file = LoadBaselineFile(path, &err);
  if (file) return *file;
  return UnusableBaseline(err, IsMissingFile(path));
}

bool IsMissingFile(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) != 0 && errno == ENOENT;
}

std::optional<std::string> StoredBaselineProblem(const BaselineFile& file, const std::string& path,
                                                 const WorkloadResult& w) {
  if (!file.error.empty()) return file.error;
  const StoredWorkload* stored = file.Find(w.name);
  if (!stored) return "the stored baseline " + path + " has no workload " + w.name;
  if (auto problem = CompatibilityProblem(stored->fingerprint, w.candidate.fingerprint)) {
    return "the stored baseline " + path + " is not comparable: " + *problem;
  }
  return std::nullopt;
}

void ApplyStoredBaseline(const BaselineFile& file, const std::string& path, WorkloadResult* w) {
  w->baseline = SideResult();
  const std::optional<std::string> problem = StoredBaselineProblem(file, path, *w);
  if (const StoredWorkload* stored = file.error.empty() ? file.Find(w->name) : nullptr) {
    w->baseline.counts = stored->counts;
    w->baseline.score = stored->score;
    w->baseline.fingerprint = stored->fingerprint;
  }
  if (problem) w->baseline.error = *problem;
}

StoredBaselineUse StoredBaselineUseOf(const BaselineFile& file, const std::string& path,
                                      const std::vector<WorkloadResult>& workloads) {
  StoredBaselineUse use{path, StoredBaselineStatus::kUsed, ""};
  if (!file.error.empty()) {
    use.status = file.missing ? StoredBaselineStatus::kMissing : StoredBaselineStatus::kUnreadable;
    use.problem = file.error;
    return use;
  }
  size_t unusable = 0;
  for (const WorkloadResult& w : workloads) {
    std::optional<std::string> problem = StoredBaselineProblem(file, path, w);
    if (!problem) continue;
    if (unusable++ == 0) use.problem = w.name + ": " + *problem;
  }
  if (unusable == 0) return use;
  use.status = StoredBaselineStatus::kIncompatible;
  if (unusable > 1) use.problem += fmt::format(" (and {} more workloads)", unusable - 1);
  return use;
}

}  // namespace workgate
