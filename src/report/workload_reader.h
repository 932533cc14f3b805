#pragma once
// One workload of a compare report read back into the model: the part of
// report/report_reader.h that mirrors WorkloadToJson in report/json_report.cc.

#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"

namespace workgate {

/// Reads the workload object `j` at path `where` ("workloads[3]") strictly
/// (report/json_fields.h). False with `*err` naming the field.
bool ReadWorkload(const nlohmann::json& j, const std::string& where, WorkloadResult* w,
                  std::string* err);

}  // namespace workgate
