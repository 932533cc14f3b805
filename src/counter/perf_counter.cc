#include "counter/perf_counter.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>
#include <mutex>
#include <sstream>

#include "util/error.h"

namespace workgate {

namespace {

int PerfEventOpen(perf_event_attr* attr, pid_t pid, unsigned long flags) {
  return static_cast<int>(syscall(SYS_perf_event_open, attr, pid, -1, -1, flags));
}

bool InitializeLibpfm(std::string* err) {
  static int status = PFM_SUCCESS;
  static std::once_flag once;
  std::call_once(once, [] { status = pfm_initialize(); });
  if (status != PFM_SUCCESS) {
    *err = fmt::format("libpfm4 failed to initialise: {}", pfm_strerror(status));
    return false;
  }
  return true;
}

// Opens every event of `events` in the forked child for the child itself.
// With `region`, counters start disabled and stay open across exec at fixed
// descriptor numbers for the workload's markers; otherwise the kernel enables
// them at exec (enable_on_exec) and closes them there (CLOEXEC), while the
// parent keeps its copies.
class PerfChildSetup : public ChildSetup {
 public:
  PerfChildSetup(std::vector<perf_event_attr> attrs, bool region)
      : attrs_(std::move(attrs)), region_(region) {}

  int InChild(int* fds, int* nfds) override {
    *nfds = 0;
    for (size_t i = 0; i < attrs_.size(); ++i) {
      int fd = PerfEventOpen(&attrs_[i], 0, region_ ? 0 : PERF_FLAG_FD_CLOEXEC);
      if (fd < 0) return errno;
      if (region_) {
        const int fixed = kRegionFdBase + static_cast<int>(i);
        if (dup2(fd, fixed) < 0) return errno;
        close(fd);
        fd = fixed;
      }
      fds[(*nfds)++] = fd;
    }
    return 0;
  }
  bool WorkloadKeepsFds() const override { return region_; }

 private:
  std::vector<perf_event_attr> attrs_;
  bool region_;
};

}  // namespace

bool EncodePerfEvents(const std::string& events, std::vector<PerfEventSpec>* out,
                      std::string* err) {
  if (!InitializeLibpfm(err)) return false;
  out->clear();
  std::stringstream list(events);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name.empty()) continue;
    PerfEventSpec spec;
    spec.name = name;
    memset(&spec.attr, 0, sizeof spec.attr);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &spec.attr;
    arg.size = sizeof arg;
    // PFM_PLM3: user level, for names that do not say otherwise.
    int ret = pfm_get_os_event_encoding(name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (ret != PFM_SUCCESS) {
      *err = fmt::format(
          "libpfm4 cannot encode the event '{}': {} (run `workgate probe` to see the PMUs "
          "libpfm4 detects; software events are named like perf::task-clock)",
          name, pfm_strerror(ret));
      return false;
    }
    spec.attr.size = sizeof spec.attr;
    spec.attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    spec.attr.disabled = 1;
    spec.attr.inherit = 1;
    spec.attr.exclude_hv = 1;
    out->push_back(spec);
  }
  if (out->empty()) {
    *err = "no event named";
    return false;
  }
  return true;
}

bool ParsePerfRead(const void* data, size_t size, PerfReadValues* out) {
  if (size != 3 * sizeof(uint64_t)) return false;
  uint64_t v[3];
  memcpy(v, data, sizeof v);
  out->value = v[0];
  out->time_enabled = v[1];
  out->time_running = v[2];
  return true;
}

namespace {

bool ReadCounter(int fd, const std::string& name, EventCount* out, std::string* err) {
  uint64_t buf[3];
  ssize_t n = read(fd, buf, sizeof buf);
  PerfReadValues values;
  if (n < 0 || !ParsePerfRead(buf, static_cast<size_t>(n), &values)) {
    *err = fmt::format("reading the counter for {} failed: {}", name,
                       n < 0 ? strerror(errno) : "short read");
    return false;
  }
  out->event = name;
  out->value = values.value;
  out->time_enabled = values.time_enabled;
  out->time_running = values.time_running;
  return true;
}

}  // namespace

PerfCounter::PerfCounter(const std::string& events) {
  std::string err;
  if (!EncodePerfEvents(events, &events_, &err)) throw UsageError(err);
  if (events_.size() > static_cast<size_t>(ChildSetup::kMaxFds)) {
    throw UsageError(fmt::format("at most {} events at once", ChildSetup::kMaxFds));
  }
}

CountedRun PerfCounter::Run(const LaunchSpec& spec, const CountOptions& options) {
  std::vector<perf_event_attr> attrs;
  for (const auto& e : events_) {
    perf_event_attr attr = e.attr;
    attr.enable_on_exec = options.region ? 0 : 1;
    attrs.push_back(attr);
  }
  PerfChildSetup setup(std::move(attrs), options.region);
  LaunchSpec counted = spec;
  counted.setup = &setup;
  if (options.region) {
    std::string list;
    for (size_t i = 0; i < events_.size(); ++i) {
      list += (i ? "," : "") + std::to_string(kRegionFdBase + static_cast<int>(i));
    }
    counted.env["WORKGATE_PERF_FDS"] = list;
  }
  CountedRun run;
  run.launch = Launch(counted);
  if (run.launch.setup_errno != 0) {
    run.error = fmt::format("perf_event_open({}) failed: {}", events_[FirstFailingEvent()].name,
                            strerror(run.launch.setup_errno));
    return run;
  }
  if (!MarkFailedLaunch(&run, spec.timeout_seconds)) {
    if (run.launch.fds.size() != events_.size()) {
      run.error = "the counters did not reach workgate from the child";
    } else {
      for (size_t i = 0; i < events_.size(); ++i) {
        EventCount count;
        if (!ReadCounter(run.launch.fds[i], events_[i].name, &count, &run.error)) break;
        run.events.push_back(count);
      }
    }
  }
  // A region counter is opened disabled, and only the markers' ioctl
  // enables it; the kernel adds to time_enabled only while it is enabled,
  // so 0 there means no WORKGATE_REGION_BEGIN() ever ran, where a count of
  // 0 could also be a region with nothing in it.
  if (options.region && run.error.empty() && !run.events.empty() &&
      run.events[0].time_enabled == 0) {
    run.error = RegionNeverEntered("its counters were never enabled");
  }
  for (int fd : run.launch.fds) close(fd);
  run.launch.fds.clear();
  if (!run.error.empty()) run.events.clear();
  return run;
}

size_t PerfCounter::FirstFailingEvent() const {
  for (size_t i = 0; i < events_.size(); ++i) {
    perf_event_attr attr = events_[i].attr;
    attr.inherit = 0;
    int fd = PerfEventOpen(&attr, 0, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return i;
    close(fd);
  }
  return 0;
}

bool PerfCounter::CountSelf(void (*work)(void*), void* arg, std::vector<EventCount>* out,
                            int* open_errno) {
  std::vector<int> fds;
  *open_errno = 0;
  for (const auto& e : events_) {
    perf_event_attr attr = e.attr;
    attr.inherit = 0;
    int fd = PerfEventOpen(&attr, 0, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      *open_errno = errno;
      failed_index_ = fds.size();
      break;
    }
    fds.push_back(fd);
  }
  bool ok = *open_errno == 0;
  if (ok) {
    for (int fd : fds) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    work(arg);
    for (int fd : fds) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    out->clear();
    std::string err;
    for (size_t i = 0; i < fds.size() && ok; ++i) {
      EventCount c;
      ok = ReadCounter(fds[i], events_[i].name, &c, &err);
      out->push_back(c);
    }
  }
  for (int fd : fds) close(fd);
  return ok;
}

}  // namespace workgate
