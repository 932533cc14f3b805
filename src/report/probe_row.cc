#include "report/probe_row.h"

#include <fmt/format.h>

#include "model/backend.h"
#include "model/schema_versions.h"
#include "report/json_fields.h"
#include "util/input_file.h"
#include "util/text.h"

namespace workgate {
namespace {

using nlohmann::json;

// The backends a probe measures; three, so a list of more is no probe's.
constexpr size_t kMaxResolutions = 3;

bool IsBackendName(const std::string& name) { return FindBackend(name) != nullptr; }

bool ReadResolution(const json& j, const std::string& where, ProbeResolution* r, std::string* err) {
  JsonFields f(j, where, err);
  if (!(f.String("backend", &r->backend) && f.Bool("ok", &r->ok))) return false;
  if (!IsBackendName(r->backend)) return f.Fail("backend", "is not a workgate backend");
  if (!r->ok) return f.String("error", &r->error);
  return f.Bool("exact", &r->exact) && f.Uint("spread", &r->spread) &&
         f.Number("instructions_per_iteration", &r->per_iteration);
}

bool ReadSystem(const json& j, ProbeRow* row, std::string* err) {
  JsonFields f(j, "system", err);
  std::optional<int64_t> paranoid;
  std::optional<std::string> name, vendor;
  const json* present = f.Any("hypervisor_present");
  if (!(f.IntOrNull("perf_event_paranoid", &paranoid) && f.StringOrNull("hypervisor_name", &name) &&
        f.StringOrNull("hypervisor_vendor", &vendor))) {
    return false;
  }
  if (!present->is_boolean() && !present->is_null()) {
    return f.Fail("hypervisor_present", "must be true, false or null");
  }
  // The kernel takes -1 to 4 (Debian adds 3); anything else is no reading.
  if (paranoid && (*paranoid < -1 || *paranoid > 4)) {
    return f.Fail("perf_event_paranoid", "must be in [-1, 4]");
  }
  if (paranoid) row->paranoid = static_cast<int>(*paranoid);
  if (present->is_boolean()) row->hypervisor_present = present->get<bool>();
  row->hypervisor = name && !name->empty() ? *name : vendor.value_or("");
  return true;
}

}  // namespace

bool ProbeRowFromJson(const json& doc, const std::string& source, ProbeRow* row, std::string* err) {
  JsonFields f(doc, "", err);
  int version = 0;
  std::optional<std::string> reason;
  const json* system = f.Object("system", false);
  const json* perf = f.Object("perf", false);
  const json* resolutions = f.Array("resolution", kMaxResolutions);
  const json* chosen = f.Object("auto", false);
  if (!(f.Int("schema_version", kProbeSchemaVersion, kProbeSchemaVersion, &version) &&
        f.String("label", &row->label) && ReadSystem(*system, row, err))) {
    return false;
  }
  JsonFields p(*perf, "perf", err);
  if (!(p.String("event", &row->event) && p.Bool("ok", &row->pmu_counts) &&
        p.StringOrNull("reason", &reason))) {
    return false;
  }
  row->pmu_reason = reason.value_or("");
  JsonFields a(*chosen, "auto", err);
  std::optional<std::string> backend;
  if (!a.StringOrNull("backend", &backend)) return false;
  row->backend = backend.value_or("");
  if (!row->backend.empty() && !IsBackendName(row->backend)) {
    return a.Fail("backend", "is not a workgate backend");
  }
  for (size_t i = 0; i < resolutions->size(); ++i) {
    row->resolutions.emplace_back();
    if (!ReadResolution(resolutions->at(i), ItemPath("resolution", i), &row->resolutions.back(),
                        err)) {
      return false;
    }
  }
  row->source = source;
  return true;
}

std::optional<ProbeRow> ParseProbeRow(std::string_view text, const std::string& path,
                                      std::string* err) {
  json doc;
  if (std::string why; !ParseJsonText(text, &doc, &why)) {
    *err = path + " is corrupt: " + why;
    return std::nullopt;
  }
  // A probe has these; a compare report, a count or a baseline has not.
  for (const char* key : {"perf", "auto", "resolution", "system"}) {
    if (!doc.is_object() || !doc.contains(key)) {
      *err = fmt::format(
          "{} is not a workgate probe (it has no \"{}\"; probe --json FILE writes one)", path, key);
      return std::nullopt;
    }
  }
  ProbeRow row;
  std::string why;
  if (!ProbeRowFromJson(doc, path, &row, &why)) {
    *err = path + " is corrupt: " + why;
    return std::nullopt;
  }
  return row;
}

std::optional<ProbeRow> LoadProbeRow(const std::string& path, std::string* err) {
  std::string text;
  if (!ReadInputFile(path, "the probe", kMaxProbeBytes, &text, err)) return std::nullopt;
  return ParseProbeRow(text, path, err);
}

}  // namespace workgate
