#pragma once
// JSON forms of the parts of the result model that both the stored-baseline
// file and the JSON report carry, so the two spell them the same way.

#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"

namespace workgate {

/// {"workgate_version", "backend", "event", "cpu_model", "kernel",
///  "valgrind_version", "valgrind_path", "binary_sha256", "libraries": {path: sha256},
///  "ld_so_cache_sha256", "argv": [...], "env": {name: value}, "suite_sha256"}.
nlohmann::json FingerprintToJson(const Fingerprint& fp);

/// The inverse of FingerprintToJson. Absent keys stay empty (older writers);
/// a key of the wrong type is an error naming it, prefixed with `where`.
bool FingerprintFromJson(const nlohmann::json& j, const std::string& where, Fingerprint* fp,
                         std::string* err);

/// [uint, ...]; false with `*err` (prefixed with `where`) unless `j` is an
/// array of non-negative integers, none above kMaxCount (decision/decision.h).
bool CountsFromJson(const nlohmann::json& j, const std::string& where,
                    std::vector<uint64_t>* counts, std::string* err);

/// A side's "from_store" (null when the result store gave none of its counts).
nlohmann::json FromStoreToJson(const std::optional<FromStore>& from);

}  // namespace workgate
