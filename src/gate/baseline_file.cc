#include "gate/baseline_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gate/fingerprint.h"
#include "gate/model_json.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace workgate {
namespace {

using nlohmann::json;

constexpr char kFormat[] = "workgate-baseline";

bool ReadWholeFile(const std::string& path, std::string* text, std::string* err) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *err = errno == ENOENT ? "baseline file " + path + " does not exist"
                           : "cannot read baseline file " + path + ": " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *err = "cannot read baseline file " + path + ": it is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = "cannot read baseline file " + path + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream all;
  all << in.rdbuf();
  if (in.bad()) {
    *err = "cannot read baseline file " + path + ": read error";
    return false;
  }
  *text = all.str();
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
  return FingerprintFromJson(*fp, where + ".fingerprint", &w->fingerprint, err);
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
    file.workloads.push_back({w.name, side.counts, side.score, side.fingerprint});
  }
  return file;
}

bool SaveBaselineFile(const std::string& path, const BaselineFile& file, std::string* err) {
  json workloads = json::array();
  for (const StoredWorkload& w : file.workloads) {
    workloads.push_back({{"name", w.name},
                         {"counts", w.counts},
                         {"score", w.score ? json(*w.score) : json(nullptr)},
                         {"fingerprint", FingerprintToJson(w.fingerprint)}});
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
  if (!ReadWholeFile(path, &text, err)) return std::nullopt;
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    *err = "baseline file " + path + " is not valid JSON: " + e.what();
    return std::nullopt;
  }
  if (!doc.is_object() || doc.value("format", json()) != kFormat) {
    *err = "baseline file " + path + " is not a workgate baseline (no \"format\": \"" + kFormat +
           "\")";
    return std::nullopt;
  }
  auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer()) {
    *err = "baseline file " + path + " has no integer schema_version";
    return std::nullopt;
  }
  BaselineFile file;
  file.schema_version = version->get<int>();
  if (file.schema_version != kBaselineSchemaVersion) {
    *err = "baseline file " + path + " has schema_version " + std::to_string(file.schema_version) +
           "; this workgate reads version " + std::to_string(kBaselineSchemaVersion) +
           " (save the baseline again)";
    return std::nullopt;
  }
  const std::string where = "baseline file " + path + ": ";
  for (const auto& [key, out] :
       {std::pair{"workgate_version", &file.workgate_version}, std::pair{"label", &file.label}}) {
    auto it = doc.find(key);
    if (it != doc.end() && !it->is_string()) {
      *err = where + key + " must be a string";
      return std::nullopt;
    }
    if (it != doc.end()) *out = it->get<std::string>();
  }
  auto workloads = doc.find("workloads");
  if (workloads == doc.end() || !workloads->is_array()) {
    *err = where + "workloads must be a list";
    return std::nullopt;
  }
  for (size_t i = 0; i < workloads->size(); ++i) {
    StoredWorkload w;
    if (!WorkloadFromJson((*workloads)[i], where + "workloads[" + std::to_string(i) + "]", &w,
                          err)) {
      return std::nullopt;
    }
    if (file.Find(w.name)) {
      *err = where + "workload " + w.name + " appears twice";
      return std::nullopt;
    }
    file.workloads.push_back(std::move(w));
  }
  return file;
}

void ApplyStoredBaseline(const BaselineFile& file, const std::string& path, WorkloadResult* w) {
  w->baseline = SideResult();
  const StoredWorkload* stored = file.Find(w->name);
  if (!stored) {
    w->baseline.error = "the stored baseline " + path + " has no workload " + w->name;
    return;
  }
  w->baseline.counts = stored->counts;
  w->baseline.score = stored->score;
  w->baseline.fingerprint = stored->fingerprint;
  if (auto problem = CompatibilityProblem(stored->fingerprint, w->candidate.fingerprint)) {
    w->baseline.error = "the stored baseline " + path + " is not comparable: " + *problem;
  }
}

}  // namespace workgate
