#include "measure/git_objects.h"

#include <cstdlib>
#include <filesystem>
#include <utility>

#include "util/atomic_file.h"
#include "util/sha256.h"

namespace workgate {

namespace {

namespace fs = std::filesystem;

// How long one git question may take.
constexpr double kGitSeconds = 20;

std::string HexOf(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

struct TreeEntry {
  std::string mode, id;
};

// The entry `name` of the tree object `tree` ("<mode> <name>\0<raw id>"
// after one another), its id in hex; nullopt when it has none or is cut.
std::optional<TreeEntry> EntryNamed(std::string_view tree, std::string_view name, size_t id_bytes) {
  size_t at = 0;
  while (at < tree.size()) {
    const size_t space = tree.find(' ', at);
    if (space == std::string_view::npos) return std::nullopt;
    const size_t nul = tree.find('\0', space + 1);
    if (nul == std::string_view::npos || tree.size() - (nul + 1) < id_bytes) return std::nullopt;
    if (tree.substr(space + 1, nul - space - 1) == name) {
      return TreeEntry{std::string(tree.substr(at, space - at)),
                       HexOf(tree.substr(nul + 1, id_bytes))};
    }
    at = nul + 1 + id_bytes;
  }
  return std::nullopt;
}

}  // namespace

LaunchResult RunGit(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env,
                    std::function<void(std::string_view)> on_line,
                    std::function<void(int, std::string_view)> on_output) {
  LaunchSpec spec;
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env != nullptr && *path_env != '\0' ? path_env : "/usr/bin:/bin";
  spec.exec_path = SearchPath("git", path);
  if (spec.exec_path.empty()) {
    LaunchResult missing;
    missing.start_error = "git is not installed";
    return missing;
  }
  spec.argv = {"git"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {{"PATH", path},
              {"LC_ALL", "C"},
              {"GIT_CONFIG_NOSYSTEM", "1"},
              {"GIT_CONFIG_GLOBAL", "/dev/null"}};
  for (const auto& [name, value] : env) spec.env[name] = value;
  spec.no_aslr = false;
  spec.timeout_seconds = kGitSeconds;
  spec.stdout_line = std::move(on_line);
  spec.passthrough = std::move(on_output);
  return Launch(spec);
}

std::string GitObjectId(std::string_view format, std::string_view type, std::string_view content) {
  std::string object(type);
  object += ' ';
  object += std::to_string(content.size());
  object += '\0';
  object += content;
  if (format == "sha1") return Sha1Hex(object);
  if (format == "sha256") return Sha256Hex(object);
  return "";
}

bool IsObjectId(std::string_view format, std::string_view id) {
  const size_t length = format == "sha1" ? 40 : format == "sha256" ? 64 : 0;
  if (length == 0 || id.size() != length) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

GitObjects::GitObjects(std::string objects, std::string format)
    : objects_(std::move(objects)), format_(std::move(format)) {}

bool GitObjects::Ready() {
  if (repo_) return true;
  if (unusable_) return false;
  unusable_ = true;
  // objects/info/alternates holds one path a line; an absolute one never
  // starts with the '"' of a quoted line or the '#' of a comment.
  if (!fs::path(objects_).is_absolute() || objects_.find('\n') != std::string::npos ||
      (format_ != "sha1" && format_ != "sha256")) {
    return false;
  }
  try {
    repo_ = std::make_unique<TempDir>("workgate-git");
  } catch (const std::exception&) {
    return false;
  }
  const std::string dir = repo_->path();
  std::error_code ec;
  fs::create_directories(dir + "/objects/info", ec);
  if (!ec) fs::create_directory(dir + "/refs", ec);
  std::string err;
  // No work tree, and the object format of the checkout; nothing else is
  // configured, so every key that could name a program is unset.
  const std::string config =
      "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
      "[extensions]\n\tobjectFormat = " +
      format_ + "\n";
  if (ec || !WriteFileAtomically(dir + "/HEAD", "ref: refs/heads/none\n", &err) ||
      !WriteFileAtomically(dir + "/config", config, &err) ||
      !WriteFileAtomically(dir + "/objects/info/alternates", objects_ + "\n", &err)) {
    repo_.reset();
    return false;
  }
  unusable_ = false;
  return true;
}

LaunchResult GitObjects::Git(const std::vector<std::string>& args,
                             std::function<void(std::string_view)> on_line,
                             std::function<void(int, std::string_view)> on_output) {
  // HOME is the private repository too, which has no .gitconfig and no
  // .config/git/attributes; the system's attributes are off, and replace
  // references (none here) are not followed.
  const std::string& dir = repo_->path();
  return RunGit(args,
                {{"GIT_DIR", dir},
                 {"HOME", dir},
                 {"GIT_ATTR_NOSYSTEM", "1"},
                 {"GIT_NO_REPLACE_OBJECTS", "1"},
                 {"GIT_OPTIONAL_LOCKS", "0"}},
                std::move(on_line), std::move(on_output));
}

std::optional<std::string> GitObjects::Read(std::string_view type, const std::string& id,
                                            uint64_t max_bytes) {
  if (!IsObjectId(format_, id) || !Ready()) return std::nullopt;
  std::string content;
  bool too_large = false;
  const LaunchResult r =
      Git({"cat-file", std::string(type), id}, nullptr, [&](int fd, std::string_view chunk) {
        if (fd != 1 || too_large) return;
        if (content.size() + chunk.size() > max_bytes) {
          too_large = true;
          std::string().swap(content);
          return;
        }
        content.append(chunk);
      });
  // git does not hash a loose object or a pack entry again when it reads
  // one: the bytes must be what the name says.
  if (!r.ok() || too_large || GitObjectId(format_, type, content) != id) return std::nullopt;
  return content;
}

std::optional<std::string> GitObjects::BlobAt(const std::string& commit, const std::string& path) {
  auto root = roots_.find(commit);
  if (root == roots_.end()) {
    const std::optional<std::string> object = Read("commit", commit);
    // A commit's first line names its tree: "tree <id>".
    if (!object || object->rfind("tree ", 0) != 0) return std::nullopt;
    root = roots_.emplace(commit, object->substr(5, object->find('\n') - 5)).first;
  }
  std::string id = root->second;
  std::string mode = "40000";
  const size_t id_bytes = format_ == "sha1" ? 20 : 32;
  for (size_t at = 0; at <= path.size();) {
    if (mode != "40000") return std::nullopt;  // a part of the way is no directory
    auto tree = trees_.find(id);
    if (tree == trees_.end()) {
      std::optional<std::string> read = Read("tree", id);
      if (!read) return std::nullopt;
      tree = trees_.emplace(id, std::move(*read)).first;
    }
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    const std::string_view name = std::string_view(path).substr(at, slash - at);
    if (name.empty()) return std::nullopt;
    const std::optional<TreeEntry> entry = EntryNamed(tree->second, name, id_bytes);
    if (!entry) return std::nullopt;
    mode = entry->mode;
    id = entry->id;
    at = slash + 1;
  }
  // 100644 and 100755 are regular files; 120000 is a symbolic link and
  // 160000 a submodule's commit.
  if (mode != "100644" && mode != "100755") return std::nullopt;
  return id;
}

std::optional<std::string> GitObjects::DiffHeaders(const std::string& from, const std::string& to) {
  if (!IsObjectId(format_, from) || !IsObjectId(format_, to) || !Ready()) return std::nullopt;
  std::string headers;
  const LaunchResult r =
      Git({"diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", from, to},
          [&headers](std::string_view line) {
            if (line.rfind("@@ -", 0) == 0) headers.append(line).append("\n");
          });
  if (!r.ok()) return std::nullopt;
  return headers;
}

}  // namespace workgate
