#include "model/model_json.h"

#include <fmt/format.h>

#include "model/model.h"

namespace workgate {
namespace {

using nlohmann::json;

bool GetString(const json& j, const char* key, const std::string& where, std::string* out,
               std::string* err) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string()) {
    *err = where + "." + key + " must be a string";
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

bool GetStringMap(const json& j, const char* key, const std::string& where,
                  std::map<std::string, std::string>* out, std::string* err) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_object()) {
    *err = where + "." + key + " must be an object of strings";
    return false;
  }
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) {
      *err = where + "." + key + "." + k + " must be a string";
      return false;
    }
    (*out)[k] = v.get<std::string>();
  }
  return true;
}

}  // namespace

json FingerprintToJson(const Fingerprint& fp) {
  return json{{"workgate_version", fp.workgate_version},
              {"backend", fp.backend},
              {"event", fp.event},
              {"cpu_model", fp.cpu_model},
              {"kernel", fp.kernel},
              {"valgrind_version", fp.valgrind_version},
              {"valgrind_path", fp.valgrind_path},
              {"binary_sha256", fp.binary_sha256},
              {"libraries", fp.libraries},
              {"ld_so_cache_sha256", fp.ld_so_cache_sha256},
              {"argv", fp.argv},
              {"env", fp.env},
              {"suite_sha256", fp.suite_sha256}};
}

bool FingerprintFromJson(const json& j, const std::string& where, Fingerprint* fp,
                         std::string* err) {
  if (!j.is_object()) {
    *err = where + " must be an object";
    return false;
  }
  const std::pair<const char*, std::string*> strings[] = {
      {"workgate_version", &fp->workgate_version},
      {"backend", &fp->backend},
      {"event", &fp->event},
      {"cpu_model", &fp->cpu_model},
      {"kernel", &fp->kernel},
      {"valgrind_version", &fp->valgrind_version},
      {"valgrind_path", &fp->valgrind_path},
      {"binary_sha256", &fp->binary_sha256},
      {"ld_so_cache_sha256", &fp->ld_so_cache_sha256},
      {"suite_sha256", &fp->suite_sha256},
  };
  for (const auto& [key, out] : strings) {
    if (!GetString(j, key, where, out, err)) return false;
  }
  if (!GetStringMap(j, "libraries", where, &fp->libraries, err)) return false;
  if (!GetStringMap(j, "env", where, &fp->env, err)) return false;
  auto argv = j.find("argv");
  if (argv != j.end() && !argv->is_null()) {
    if (!argv->is_array()) {
      *err = where + ".argv must be a list of strings";
      return false;
    }
    for (const json& a : *argv) {
      if (!a.is_string()) {
        *err = where + ".argv must be a list of strings";
        return false;
      }
      fp->argv.push_back(a.get<std::string>());
    }
  }
  return true;
}

bool CountsFromJson(const json& j, const std::string& where, std::vector<uint64_t>* counts,
                    std::string* err) {
  if (!j.is_array()) {
    *err = where + " must be a list of non-negative integers";
    return false;
  }
  counts->clear();
  for (size_t i = 0; i < j.size(); ++i) {
    const json& c = j[i];
    if (!c.is_number_unsigned()) {
      *err = where + " must be a list of non-negative integers";
      return false;
    }
    if (c.get<uint64_t>() > kMaxCount) {
      *err = fmt::format("{}[{}] is {}, above the largest count workgate takes ({})", where, i,
                         c.get<uint64_t>(), kMaxCount);
      return false;
    }
    counts->push_back(c.get<uint64_t>());
  }
  return true;
}

nlohmann::json FromStoreToJson(const std::optional<FromStore>& from) {
  if (!from) return nullptr;
  return nlohmann::json{
      {"counted_at", from->counted_at},
      {"ref", from->ref.empty() ? nlohmann::json(nullptr) : nlohmann::json(from->ref)},
      {"label", from->label},
      {"counts", from->counts}};
}

}  // namespace workgate
