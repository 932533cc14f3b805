#pragma once
// A checkout's git objects, read as data and nothing else.
//
// The checkout is the candidate's: while it is counted it can write the
// repository's .git/config and info/attributes, where a filter, textconv,
// fsmonitor or hook command would run as workgate's user the next time git
// runs there, outside every namespace; and it can write loose objects and
// packs, which git does not hash again when it reads them. So the git
// commands that read sources run against a private bare repository that
// workgate makes for them: its configuration is workgate's (with no system
// or global one), its attributes are none, and its only link to the checkout
// is objects/info/alternates naming the checkout's object directory. Only
// object plumbing runs there (cat-file of one typed object, diff of two
// blobs, without external diff or textconv), and every object is checked
// against its name before it is used, from a commit resolved before anything
// of the candidate ran, down the trees to the blob.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "launch/launch.h"
#include "util/paths.h"

namespace workgate {

/// The most bytes of one object (a commit, a tree, a blob) that is read.
inline constexpr uint64_t kMaxGitObjectBytes = 16 * 1024 * 1024;

/// Runs git `args` through workgate's launcher (its own process group,
/// ended at a 20 s deadline) in an environment of PATH, LC_ALL=C, no system
/// or global configuration and `env`. `on_line` gets each line of stdout,
/// `on_output` each chunk of stdout and stderr (fd 1 or 2), as they come.
LaunchResult RunGit(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env,
                    std::function<void(std::string_view)> on_line = nullptr,
                    std::function<void(int, std::string_view)> on_output = nullptr);

/// git's name of an object: the hex digest, in `format` ("sha1" or
/// "sha256"), of "<type> <size>\0<content>"; empty for another format.
std::string GitObjectId(std::string_view format, std::string_view type, std::string_view content);

/// Whether `id` is a whole object name of `format`: lower-case hex digits,
/// 40 of them for "sha1", 64 for "sha256".
bool IsObjectId(std::string_view format, std::string_view id);

/// The objects of one repository, read through a private bare repository
/// (the top comment). Not safe to share between threads.
class GitObjects {
 public:
  /// `objects`: the checkout's object directory, an absolute path;
  /// `format`: its object format, "sha1" or "sha256".
  GitObjects(std::string objects, std::string format);

  /// The content of object `id` of `type` ("commit", "tree" or "blob"), at
  /// most `max_bytes`, whose name is `id`; nullopt when git cannot give it,
  /// it is larger, or its bytes are not what `id` names.
  std::optional<std::string> Read(std::string_view type, const std::string& id,
                                  uint64_t max_bytes = kMaxGitObjectBytes);

  /// The name of the blob at `path` (relative, '/' between its parts) in the
  /// tree of commit `commit`, each object on the way read by Read; nullopt
  /// unless every part but the last is a directory and the last a regular
  /// file (not a symbolic link, nor a submodule).
  std::optional<std::string> BlobAt(const std::string& commit, const std::string& path);

  /// The hunk headers ("@@ -a,b +c,d @@ ...", one a line) of `git diff -U0`
  /// from blob `from` to blob `to`, which the caller has Read; nullopt when
  /// git cannot diff them.
  std::optional<std::string> DiffHeaders(const std::string& from, const std::string& to);

 private:
  // Makes the private repository on first use; false when it cannot be.
  bool Ready();
  LaunchResult Git(const std::vector<std::string>& args,
                   std::function<void(std::string_view)> on_line = nullptr,
                   std::function<void(int, std::string_view)> on_output = nullptr);

  std::string objects_, format_;
  std::unique_ptr<TempDir> repo_;
  bool unusable_ = false;
  std::map<std::string, std::string> roots_;  // each commit's tree id, by the commit's
  std::map<std::string, std::string> trees_;  // each tree read, by its id
};

}  // namespace workgate
