#include "report/explain_json.h"

#include "report/json_report.h"

namespace workgate {

nlohmann::json ExplanationsToJson(const std::vector<WorkloadResult>& workloads, int exit_code) {
  nlohmann::json out = nlohmann::json::array();
  for (const WorkloadResult& w : workloads) {
    out.push_back({{"name", w.name}, {"explanation", ExplanationToJson(w.explanation)}});
  }
  return {{"schema_version", kExplainSchemaVersion}, {"exit_code", exit_code}, {"workloads", out}};
}

}  // namespace workgate
