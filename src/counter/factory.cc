#include "counter/factory.h"

#include <fmt/format.h>
#include <unistd.h>

#include "counter/perf_counter.h"
#include "counter/valgrind_counter.h"
#include "counter/vgcount_install.h"
#include "machine/known_loop.h"
#include "machine/perf_reason.h"
#include "machine/system_info.h"
#include "model/backend.h"
#include "util/error.h"

namespace workgate {

namespace {

std::string BackendString(Backend backend) { return std::string(BackendName(backend)); }

// A virtual machine whose kernel lists no CPU PMU (most CI runners) cannot
// open the default event, for the reason NoCorePmuReason gives, which is what
// trying says there (PerfOpenFailureReason). Saying it without trying opens
// no counter and initialises no libpfm4 (about 2 ms of CPU, a fiftieth of a
// short count). Another event (a software one counts without a PMU, a
// misspelt one is the user's to hear of) and bare metal (a PMU driver
// under a name IsCorePmu does not know could still count) are tried.
bool NoPmuForTheDefaultEvent(const std::string& events, const SystemInfo& info) {
  return events == kDefaultPerfEvent && info.hypervisor_present.value.value_or(false) &&
         info.kernel_pmus.value && !info.HasCorePmu();
}

}  // namespace

bool ParseBackendRequest(const std::string& text, BackendRequest* out) {
  if (text == "auto") {
    *out = BackendRequest::kAuto;
    return true;
  }
  const std::optional<Backend> backend = ParseBackend(text);
  if (!backend) return false;
  switch (*backend) {
    case Backend::kPerf:
      *out = BackendRequest::kPerf;
      break;
    case Backend::kCallgrind:
      *out = BackendRequest::kCallgrind;
      break;
    case Backend::kVgcount:
      *out = BackendRequest::kVgcount;
      break;
  }
  return true;
}

PerfCheck CheckPerf(const std::string& events, const SystemInfo& info) {
  PerfCheck check;
  try {
    PerfCounter counter(events);
    void (*work)(void*) = [](void*) { RunKnownLoop(1000000); };
    if (counter.CountSelf(work, nullptr, &check.counts, &check.open_errno)) {
      check.ok = !check.counts.empty() && check.counts[0].time_running > 0;
      if (!check.ok) check.reason = "the counter opened but never ran (all counters busy?)";
    } else if (check.open_errno != 0) {
      check.reason = PerfOpenFailureReason(check.open_errno, counter.failed_event(), info,
                                           geteuid() == 0);
    } else {
      check.reason = "reading the counter failed";
    }
  } catch (const Error& e) {
    // An event libpfm4 cannot encode is the user's mistake, not the machine's.
    if (e.exit_code() == kExitUsage) throw;
    check.reason = e.what();
  }
  return check;
}

BackendChoice ChooseBackend(BackendRequest request, const std::string& events,
                            const SystemInfo& info) {
  BackendChoice choice;
  const bool have_valgrind = !FindValgrind().path.empty();
  const VgcountStatus vgcount = CheckVgcount();
  const bool have_vgcount = vgcount.unusable.empty();
  switch (request) {
    case BackendRequest::kPerf: {
      PerfCheck check = CheckPerf(events, info);
      if (check.ok) {
        choice = {BackendString(Backend::kPerf),
                  fmt::format("requested; perf_event_open counts {} here", events)};
      } else {
        choice.reason = fmt::format("perf cannot count {}: {}", events, check.reason);
      }
      return choice;
    }
    case BackendRequest::kCallgrind:
      if (have_valgrind) return {BackendString(Backend::kCallgrind), "requested"};
      choice.reason = "callgrind was requested, but " + FindValgrind().missing;
      return choice;
    case BackendRequest::kVgcount:
      if (have_vgcount) return {BackendString(Backend::kVgcount), "requested"};
      choice.reason = !have_valgrind  ? "vgcount was requested, but " + FindValgrind().missing
                      : vgcount.built ? "vgcount was requested, but " + vgcount.unusable
                                      : "vgcount was requested but the tool is not built";
      return choice;
    case BackendRequest::kAuto:
      break;
  }
  std::string why_perf_cannot;
  if (NoPmuForTheDefaultEvent(events, info)) {
    why_perf_cannot = NoCorePmuReason(events, info);
  } else {
    PerfCheck check = CheckPerf(events, info);
    if (check.ok) {
      return {BackendString(Backend::kPerf),
              fmt::format("perf_event_open counts {} on this machine", events)};
    }
    why_perf_cannot = check.reason;
  }
  const std::string why_not_perf = fmt::format("perf cannot count {}: {}", events, why_perf_cannot);
  if (have_vgcount) {
    return {BackendString(Backend::kVgcount),
            why_not_perf +
                "; vgcount (workgate's own Valgrind tool) counts exactly "
                "what callgrind counts, several times faster"};
  }
  if (have_valgrind) {
    return {BackendString(Backend::kCallgrind),
            why_not_perf + "; callgrind counts exactly instead (vgcount, the faster tool, " +
                (vgcount.built ? "cannot run: " + vgcount.unusable : "is not built") + ")"};
  }
  choice.reason =
      why_not_perf + "; and no backend can count without Valgrind: " + FindValgrind().missing;
  return choice;
}

std::unique_ptr<Counter> MakeCounter(const BackendChoice& choice, const std::string& events) {
  if (const std::optional<Backend> backend = ParseBackend(choice.backend)) {
    switch (*backend) {
      case Backend::kPerf:
        return std::make_unique<PerfCounter>(events);
      case Backend::kCallgrind:
        return std::make_unique<ValgrindCounter>(ValgrindCounter::Tool::kCallgrind);
      case Backend::kVgcount:
        return std::make_unique<ValgrindCounter>(ValgrindCounter::Tool::kVgcount);
    }
  }
  throw EnvironmentError("no usable counting backend: " + choice.reason);
}

}  // namespace workgate
