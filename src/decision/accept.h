#pragma once
// `workgate accept`: from a comparison's workload to the suite's accepted
// entry (AcceptedWork, model/model.h), and the checks that keep an entry
// honest: a reason a person wrote, a delta the gate really called work
// added, and sides counted for the workload as the suite defines it now.

#include <cstddef>
#include <string>
#include <vector>

#include "model/model.h"

namespace workgate {

/// The longest reason an entry takes, in bytes: a sentence or two.
inline constexpr size_t kMaxAcceptReasonBytes = 1000;

/// Why `reason` cannot be an entry's, or "": blank, kAcceptReasonPlaceholder
/// as it stands, longer than kMaxAcceptReasonBytes, not UTF-8 (a TOML string
/// must be), or holding a control character other than a tab.
std::string AcceptReasonProblem(const std::string& reason);

/// The entry that accepts workload `w` of a comparison (read from a compare
/// report, or counted now) with `reason`: its delta against its baseline's
/// count, the backend, event and workload digest of its baseline's
/// fingerprint, and both builds' SHA-256. `digest` is the workload's digest
/// as the suite defines it now (WorkloadDigest). False with `*err` when
/// either side was counted for another definition, or when `w`, decided
/// again without an accepted entry, is not work-added: the message says what
/// its verdict is and why that is nothing to accept.
bool AcceptEntryFor(const WorkloadResult& w, const std::string& digest,
                    const std::string& reason, AcceptedWork* entry, std::string* err);

/// The workloads of `report` that are work-added once decided again without
/// their accepted entries, in its order: what `accept --all` accepts.
std::vector<std::string> WorkAddedWorkloads(const CompareReport& report);

}  // namespace workgate
