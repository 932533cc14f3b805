#pragma once
// The counting backends as a typed value, and what each one is, said once:
// its name (as --backend, the reports, the JSON and the store spell it),
// whether its counts repeat exactly, whether its counting runs can keep a
// per-function profile, and whether it sees, and pins, every input a
// program reads. Which of them can run on a machine, and which `auto` picks,
// is the counter factory's business (counter/factory.h); what each one is
// does not depend on the machine.

#include <optional>
#include <string_view>

namespace workgate {

enum class Backend { kPerf, kCallgrind, kVgcount };

struct BackendTraits {
  Backend backend;
  std::string_view name;
  /// Its counts repeat exactly for one build and one input: Valgrind counts
  /// the instructions it runs, while a hardware counter varies from run to
  /// run (interrupts, the kernel's entry and exit, skid). An exact backend's
  /// count is keyed without the CPU model, has no noise floor in history,
  /// and is the only kind the result store keeps.
  bool exact;
  /// Its counting runs can write a per-function profile, so a work verdict
  /// is explained without another run.
  bool keeps_profiles;
  /// It sees every instruction and system call, so it pins time and
  /// entropy itself and knows what it met unpinned (vgcount).
  bool sees_inputs;
  /// The workload runs under Valgrind, whose own files the workload can
  /// reach unless the backend says otherwise.
  bool under_valgrind;
};

/// Every backend, in the order `auto` prefers them and the probe lists them.
inline constexpr BackendTraits kBackends[] = {
    {Backend::kPerf, "perf", false, false, false, false},
    {Backend::kCallgrind, "callgrind", true, true, false, true},
    {Backend::kVgcount, "vgcount", true, true, true, true},
};

inline constexpr const BackendTraits& TraitsOf(Backend backend) {
  for (const BackendTraits& traits : kBackends) {
    if (traits.backend == backend) return traits;
  }
  return kBackends[0];  // unreachable: every enumerator is in the table
}

inline constexpr std::string_view BackendName(Backend backend) { return TraitsOf(backend).name; }

/// The backend named `name` ("perf", "callgrind", "vgcount"); nullopt for any
/// other text, such as a name read from a file workgate did not write.
inline constexpr std::optional<Backend> ParseBackend(std::string_view name) {
  for (const BackendTraits& traits : kBackends) {
    if (traits.name == name) return traits.backend;
  }
  return std::nullopt;
}

/// The traits of the backend a result names; nullptr for "" (none) or an
/// unknown name.
inline constexpr const BackendTraits* FindBackend(std::string_view name) {
  for (const BackendTraits& traits : kBackends) {
    if (traits.name == name) return &traits;
  }
  return nullptr;
}

/// Whether the backend named `name` counts exactly; false for "" or an
/// unknown name.
inline constexpr bool IsExactBackend(std::string_view name) {
  const BackendTraits* traits = FindBackend(name);
  return traits != nullptr && traits->exact;
}

/// Whether `name` names `backend`.
inline constexpr bool IsBackend(std::string_view name, Backend backend) {
  return ParseBackend(name) == backend;
}

}  // namespace workgate
