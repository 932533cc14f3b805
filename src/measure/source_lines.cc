#include "measure/source_lines.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string_view>

#include "launch/launch.h"
#include "machine/proc_file.h"
#include "util/paths.h"
#include "util/text.h"

namespace workgate {

namespace {

namespace fs = std::filesystem;

// How long one git question may take.
constexpr double kGitSeconds = 20;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// Runs git in `dir` with `args`: through workgate's launcher (contained,
// bounded, ended at the deadline), with no user or system configuration
// and the checkout's fsmonitor and ownership check off, so that nothing in
// the checkout's own configuration runs.
LaunchResult Git(const std::string& dir, const std::vector<std::string>& args,
                 std::function<void(std::string_view)> on_line = nullptr) {
  LaunchSpec spec;
  const std::string path = Env("PATH").empty() ? "/usr/bin:/bin" : Env("PATH");
  spec.exec_path = SearchPath("git", path);
  if (spec.exec_path.empty()) {
    LaunchResult missing;
    missing.start_error = "git is not installed";
    return missing;
  }
  spec.argv = {"git", "-C", dir, "-c", "core.fsmonitor=false", "-c", "safe.directory=*"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {{"PATH", path},
              {"LC_ALL", "C"},
              {"GIT_CONFIG_NOSYSTEM", "1"},
              {"GIT_CONFIG_GLOBAL", "/dev/null"},
              {"GIT_LITERAL_PATHSPECS", "1"},
              {"GIT_OPTIONAL_LOCKS", "0"}};
  spec.no_aslr = false;
  spec.timeout_seconds = kGitSeconds;
  // Each line as it comes, where the output could be longer than the
  // launcher keeps.
  spec.stdout_line = std::move(on_line);
  return Launch(spec);
}

// The git top level of `dir`, or "" with `*why` set.
std::string TopLevel(const std::string& dir, std::string* why) {
  const LaunchResult r = Git(dir, {"rev-parse", "--show-toplevel"});
  if (!r.ok()) {
    *why = r.started ? dir + " is not in a git work tree" : "cannot run git: " + r.start_error;
    return "";
  }
  return probe_internal::Trim(r.out);
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

// Replaces every "{name}" of `text` with `value`.
std::string ReplaceAll(std::string text, const std::string& name, const std::string& value) {
  for (size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + value.size())) {
    text.replace(at, name.size(), value);
  }
  return text;
}

// A line's text trimmed and cut to kMaxSourceTextBytes.
std::string TrimmedText(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\f\v");
  if (first == std::string::npos) return std::string();
  const size_t last = text.find_last_not_of(" \t\r\f\v");
  return ShortenBytes(ValidUtf8(text.substr(first, last - first + 1)), kMaxSourceTextBytes);
}

// Line `line` of `relative` at the view's base commit: git's blob, never
// the file system, so no link can lead anywhere.
std::optional<std::string> BaseSourceLine(const SourceView& view, const std::string& relative,
                                          uint64_t line) {
  uint64_t at = 0;
  std::optional<std::string> text;
  const LaunchResult r =
      Git(view.root, {"show", view.base + ":" + relative}, [&](std::string_view l) {
        if (++at == line) text = TrimmedText(std::string(l.substr(0, 4 * kMaxSourceTextBytes)));
      });
  if (!r.ok()) return std::nullopt;
  return text;
}

}  // namespace

SourceView MakeSourceView(const std::string& root_dir, const std::string& link,
                          const std::string& base) {
  SourceView view;
  std::string dir = root_dir;
  if (dir.empty()) dir = Env("GITHUB_WORKSPACE");
  if (dir.empty()) dir = Env("CI_PROJECT_DIR");
  if (dir.empty()) dir = ".";
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  std::string why;
  if (!ec) view.root = TopLevel(absolute.string(), &why);
  if (view.root.empty()) {
    view.note = "no source texts: " + (why.empty() ? dir + " cannot be read" : why);
    return view;
  }
  if (!base.empty()) {
    // A revision never starts with "-": that would be an option.
    const LaunchResult r =
        base[0] == '-' ? LaunchResult{}
                       : Git(view.root, {"rev-parse", "--verify", "--quiet", base + "^{commit}"});
    if (r.ok()) {
      view.base = probe_internal::Trim(r.out);
    } else {
      view.note =
          "lines matched by number: the source base " + base + " is not a commit of " + view.root;
    }
  }
  if (link == "none") return view;
  view.link = link;
  // The texts come from the checkout, so the links go to its commit: the
  // candidate's. The CI's own commit is not always that: a pull request's
  // workflow that checks out the head has GITHUB_SHA the merge commit.
  const LaunchResult head = Git(view.root, {"rev-parse", "--verify", "--quiet", "HEAD^{commit}"});
  const std::string checkout = head.ok() ? probe_internal::Trim(head.out) : "";
  auto commit = [&checkout](const char* ci) { return checkout.empty() ? Env(ci) : checkout; };
  if (view.link.empty() && !Env("GITHUB_SERVER_URL").empty() && !Env("GITHUB_REPOSITORY").empty() &&
      !commit("GITHUB_SHA").empty()) {
    view.link = Env("GITHUB_SERVER_URL") + "/" + Env("GITHUB_REPOSITORY") + "/blob/" +
                commit("GITHUB_SHA") + "/{path}#L{line}";
  }
  if (view.link.empty() && !Env("CI_PROJECT_URL").empty() && !commit("CI_COMMIT_SHA").empty()) {
    view.link = Env("CI_PROJECT_URL") + "/-/blob/" + commit("CI_COMMIT_SHA") + "/{path}#L{line}";
  }
  if (view.link.empty() && view.note.empty()) {
    view.note = "no links to lines: the repository and commit are not known";
  }
  return view;
}

std::vector<DiffHunk> ParseDiffHunks(const std::string& diff) {
  std::vector<DiffHunk> hunks;
  size_t at = 0;
  while (at < diff.size()) {
    size_t end = diff.find('\n', at);
    if (end == std::string::npos) end = diff.size();
    const std::string line = diff.substr(at, end - at);
    at = end + 1;
    unsigned long long a = 0, b = 1, c = 0, d = 1;
    int used = 0;
    // "@@ -a[,b] +c[,d] @@"
    if (line.rfind("@@ -", 0) != 0) continue;
    const char* p = line.c_str() + 4;
    if (std::sscanf(p, "%llu%n", &a, &used) != 1) continue;
    p += used;
    if (*p == ',' && std::sscanf(p + 1, "%llu%n", &b, &used) == 1) p += 1 + used;
    if (std::strncmp(p, " +", 2) != 0 || std::sscanf(p + 2, "%llu%n", &c, &used) != 1) continue;
    p += 2 + used;
    if (*p == ',' && std::sscanf(p + 1, "%llu%n", &d, &used) == 1) p += 1 + used;
    if (std::strncmp(p, " @@", 3) != 0) continue;
    hunks.push_back({a, b, c, d});
  }
  return hunks;
}

uint64_t LineAfter(const std::vector<DiffHunk>& hunks, uint64_t line) {
  int64_t shift = 0;
  for (const DiffHunk& h : hunks) {
    if (h.old_count == 0) {
      // new_count lines inserted after old line old_start.
      if (line <= h.old_start) break;
    } else {
      if (line < h.old_start) break;
      if (line < h.old_start + h.old_count) return 0;
    }
    shift += static_cast<int64_t>(h.new_count) - static_cast<int64_t>(h.old_count);
  }
  const int64_t moved = static_cast<int64_t>(line) + shift;
  return moved > 0 ? static_cast<uint64_t>(moved) : 0;
}

BaselineLineMap LineAlignment(const SourceView& view) {
  if (view.root.empty() || view.base.empty()) return {};
  // Each file's hunks, asked of git once; nullopt: keep its numbers.
  auto cache = std::make_shared<std::map<std::string, std::optional<std::vector<DiffHunk>>>>();
  return [view, cache](const std::string& candidate_file, uint64_t line) -> uint64_t {
    auto found = cache->find(candidate_file);
    if (found == cache->end()) {
      std::optional<std::vector<DiffHunk>> hunks;
      const std::optional<std::string> rel = PathInCheckout(view.root, candidate_file);
      if (rel && TrackedAmong(view.root, {*rel}).count(*rel)) {
        std::string headers;
        const LaunchResult r = Git(view.root,
                                   {"diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
                                    "--no-textconv", view.base, "--", *rel},
                                   [&headers](std::string_view l) {
                                     if (l.rfind("@@ -", 0) == 0) headers.append(l).append("\n");
                                   });
        if (r.ok()) hunks = ParseDiffHunks(headers);
      }
      found = cache->emplace(candidate_file, std::move(hunks)).first;
    }
    return found->second ? LineAfter(*found->second, line) : line;
  };
}

std::optional<std::string> PathInCheckout(const std::string& root, const std::string& file) {
  if (root.empty() || file.empty() || file.find('\0') != std::string::npos) return std::nullopt;
  const fs::path base = fs::path(root).lexically_normal();
  const fs::path path = fs::path(file).is_absolute() ? fs::path(file).lexically_normal()
                                                     : (base / file).lexically_normal();
  const fs::path relative = path.lexically_relative(base);
  if (relative.empty() || relative == "." || *relative.begin() == "..") return std::nullopt;
  return relative.string();
}

std::set<std::string> TrackedAmong(const std::string& root, const std::vector<std::string>& paths) {
  std::set<std::string> tracked;
  if (root.empty() || paths.empty()) return tracked;
  std::vector<std::string> args = {"ls-files", "-z", "--"};
  args.insert(args.end(), paths.begin(), paths.end());
  const LaunchResult r = Git(root, args);
  if (!r.ok()) return tracked;
  const std::set<std::string> asked(paths.begin(), paths.end());
  size_t start = 0;
  while (start < r.out.size()) {
    size_t end = r.out.find('\0', start);
    if (end == std::string::npos) end = r.out.size();
    const std::string name = r.out.substr(start, end - start);
    // Only what was asked: a directory among the paths would list its files.
    if (asked.count(name)) tracked.insert(name);
    start = end + 1;
  }
  return tracked;
}

std::optional<std::string> ReadSourceLine(const std::string& root, const std::string& relative,
                                          uint64_t line) {
  if (line == 0 || root.empty()) return std::nullopt;
  const std::optional<std::string> inside = PathInCheckout(root, relative);
  if (!inside || *inside != fs::path(relative).lexically_normal().string()) return std::nullopt;
  // No symbolic link anywhere on the way: the resolved path must be the
  // lexical one, and the last step is opened without following one.
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return std::nullopt;
  const fs::path lexical = real_root / *inside;
  const fs::path real = fs::canonical(lexical, ec);
  if (ec || real != lexical) return std::nullopt;
  const int fd = open(lexical.c_str(), O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) > kMaxSourceBytes) {
    close(fd);
    return std::nullopt;
  }
  std::string text;
  uint64_t at_line = 1;
  char buffer[65536];
  bool found = false;
  ssize_t n = 0;
  uint64_t read_total = 0;
  while (!found && (n = read(fd, buffer, sizeof buffer)) > 0) {
    read_total += static_cast<uint64_t>(n);
    if (read_total > kMaxSourceBytes) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buffer[i] == '\n') {
        if (at_line == line) {
          found = true;
          break;
        }
        ++at_line;
        continue;
      }
      // Enough is kept to cut it after trimming; the rest is not needed.
      if (at_line == line && text.size() < 4 * kMaxSourceTextBytes) text += buffer[i];
    }
  }
  close(fd);
  // A last line without a newline counts too.
  if (!found && !(at_line == line && n == 0 && !text.empty())) return std::nullopt;
  return TrimmedText(text);
}

std::string LineLink(const std::string& link, const std::string& path, uint64_t line) {
  if (link.empty() || path.empty()) return "";
  std::string encoded;
  for (unsigned char c : path) {
    if (IsUnreserved(c) || c == '/') {
      encoded += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789ABCDEF";
      encoded += '%';
      encoded += kHex[c >> 4];
      encoded += kHex[c & 15];
    }
  }
  const std::string url =
      ReplaceAll(ReplaceAll(link, "{path}", encoded), "{line}", std::to_string(line));
  return IsPlainHttpUrl(url) ? url : "";
}

void AttachSourceLines(const SourceView& view, Explanation* e) {
  if (view.root.empty() || e == nullptr) return;
  // Every listed line's file, asked of git once.
  std::map<std::string, std::string> relative_of;  // profile file -> checkout path
  std::vector<std::string> asked;
  for (const FunctionDelta& row : e->rows) {
    for (const LineDelta& l : row.lines) {
      if (relative_of.count(l.file)) continue;
      const std::optional<std::string> rel = PathInCheckout(view.root, l.file);
      relative_of[l.file] = rel.value_or("");
      if (rel) asked.push_back(*rel);
    }
  }
  const std::set<std::string> tracked = TrackedAmong(view.root, asked);
  for (FunctionDelta& row : e->rows) {
    for (LineDelta& l : row.lines) {
      const std::string& rel = relative_of[l.file];
      if (rel.empty() || !tracked.count(rel)) continue;
      l.path = rel;
      if (l.baseline_only) {
        // The baseline's line: its text from the baseline's commit, and no
        // link (the link is to the candidate's).
        l.text = view.base.empty() ? "" : BaseSourceLine(view, rel, l.line).value_or("");
        continue;
      }
      l.text = ReadSourceLine(view.root, rel, l.line).value_or("");
      l.url = LineLink(view.link, rel, l.line);
    }
  }
}

}  // namespace workgate
