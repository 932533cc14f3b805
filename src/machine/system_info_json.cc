// ToJson for SystemInfo: the `workgate probe --json` machine description and
// the CPU/kernel/Valgrind parts of a count's fingerprint.

#include "machine/system_info.h"

namespace workgate {
namespace {

// Writes a probed field as its value or null, and records why in `notes`.
template <typename T>
void Put(nlohmann::json* j, nlohmann::json* notes, const char* name, const Probed<T>& field) {
  if (field.value) {
    (*j)[name] = *field.value;
  } else {
    (*j)[name] = nullptr;
    (*notes)[name] = field.note.empty() ? "not read" : field.note;
  }
}

}  // namespace

nlohmann::json ToJson(const SystemInfo& info) {
  nlohmann::json j = nlohmann::json::object();
  nlohmann::json notes = nlohmann::json::object();
  Put(&j, &notes, "architecture", info.architecture);
  Put(&j, &notes, "kernel_release", info.kernel_release);
  Put(&j, &notes, "cpu_vendor", info.cpu_vendor);
  Put(&j, &notes, "cpu_model", info.cpu_model);
  Put(&j, &notes, "hypervisor_present", info.hypervisor_present);
  Put(&j, &notes, "hypervisor_vendor", info.hypervisor_vendor);
  if (info.hypervisor_vendor.value) {
    j["hypervisor_name"] = info.HypervisorName();
  } else {
    j["hypervisor_name"] = nullptr;
  }
  Put(&j, &notes, "perf_event_paranoid", info.perf_event_paranoid);
  j["core_pmu_present"] = info.HasCorePmu();

  if (info.kernel_pmus.value) {
    nlohmann::json list = nlohmann::json::array();
    for (const KernelPmu& p : *info.kernel_pmus.value) {
      list.push_back({{"name", p.name}, {"type", p.type}, {"is_core", p.is_core}});
    }
    j["kernel_pmus"] = std::move(list);
  } else {
    j["kernel_pmus"] = nullptr;
    notes["kernel_pmus"] = info.kernel_pmus.note;
  }

  if (info.libpfm_pmus.value) {
    nlohmann::json list = nlohmann::json::array();
    for (const LibpfmPmu& p : *info.libpfm_pmus.value) {
      list.push_back({{"name", p.name},
                      {"desc", p.desc},
                      {"type", p.type},
                      {"num_events", p.num_events},
                      {"is_default", p.is_default}});
    }
    j["libpfm_pmus"] = std::move(list);
  } else {
    j["libpfm_pmus"] = nullptr;
    notes["libpfm_pmus"] = info.libpfm_pmus.note;
  }

  Put(&j, &notes, "valgrind_path", info.valgrind_path);
  Put(&j, &notes, "valgrind_version", info.valgrind_version);
  j["notes"] = std::move(notes);
  return j;
}

}  // namespace workgate
