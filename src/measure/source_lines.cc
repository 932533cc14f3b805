#include "measure/source_lines.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <utility>

#include "machine/proc_file.h"
#include "measure/git_objects.h"
#include "util/input_file.h"
#include "util/text.h"

namespace workgate {

namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// `git rev-parse args` in the checkout `dir`: the one git command that runs
// there. It reads the checkout's own configuration, as every git command
// in a repository does, and runs no program a key there could name; the
// keys that name one for other commands are overridden all the same. The
// ownership check is off so that a checkout of another user (the CI's, with
// workgate as root) is read: what it guards against is such a program.
LaunchResult RevParse(const std::string& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"-C",       dir,
                                   "-c",       "core.fsmonitor=false",
                                   "-c",       "core.hooksPath=/dev/null",
                                   "-c",       "safe.directory=*",
                                   "rev-parse"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunGit(argv, {{"GIT_OPTIONAL_LOCKS", "0"}});
}

// Finds the checkout's top level, object directory and object format;
// false with `*why` set.
bool FindRepository(const std::string& dir, SourceView* view, std::string* why) {
  const LaunchResult r = RevParse(dir, {"--path-format=absolute", "--show-toplevel", "--git-path",
                                        "objects", "--show-object-format"});
  if (!r.ok()) {
    *why = r.started ? dir + " is not in a git work tree" : "cannot run git: " + r.start_error;
    return false;
  }
  // One line each; a path with a line feed in it cannot be told apart.
  std::vector<std::string> lines;
  for (size_t at = 0, end; at < r.out.size(); at = end + 1) {
    end = r.out.find('\n', at);
    if (end == std::string::npos) end = r.out.size();
    lines.push_back(r.out.substr(at, end - at));
  }
  if (lines.size() != 3 || lines[0].empty()) {
    *why = dir + " is not in a git work tree";
    return false;
  }
  view->root = lines[0];
  view->objects = lines[1];
  view->format = lines[2];
  return true;
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

// A line's text trimmed and cut to kMaxSourceTextBytes.
std::string TrimmedText(std::string_view text) {
  constexpr const char* kSpace = " \t\r\f\v";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return std::string();
  // Enough is kept to cut it after trimming; the rest is not needed.
  text = text.substr(first, 4 * kMaxSourceTextBytes);
  const size_t last = text.find_last_not_of(kSpace);
  return ShortenBytes(ValidUtf8(std::string(text.substr(0, last + 1))), kMaxSourceTextBytes);
}

// Whether `text` has a carriage return that is not half of a CRLF.
bool HasLoneCarriageReturn(std::string_view text) {
  for (size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1)) {
    if (at + 1 == text.size() || text[at + 1] != '\n') return true;
  }
  return false;
}

// The checkout's files as commits hold them, each read once.
class CommittedFiles {
 public:
  struct File {
    std::string id;
    // nullopt: not read, or (at the candidate's commit) not what the work
    // tree has.
    std::optional<std::string> text;
  };

  explicit CommittedFiles(const SourceView& view) : view_(view), git_(view.objects, view.format) {}

  // `relative` at `commit`; nullopt when the commit has no regular file
  // there.
  const std::optional<File>& At(const std::string& commit, const std::string& relative) {
    auto [it, fresh] = files_.try_emplace({commit, relative});
    if (!fresh || commit.empty()) return it->second;
    const std::optional<std::string> id = git_.BlobAt(commit, relative);
    if (!id) return it->second;
    it->second = File{*id, std::nullopt};
    // The candidate's build was made from the work tree: where it differs
    // from the commit, the commit's lines are not the ones the build names.
    if (commit == view_.commit && !WorkTreeHasBlob(view_.root, relative, view_.format, *id)) {
      return it->second;
    }
    it->second->text = git_.Read("blob", *id, kMaxSourceBytes);
    return it->second;
  }

  GitObjects& git() { return git_; }

  // The hunks of `git diff -U0` from `relative` at the base to it at the
  // candidate's commit; nullopt where either commit lacks it as a regular
  // file, the work tree changed it, or it has a lone carriage return.
  const std::optional<std::vector<DiffHunk>>& HunksOf(const std::string& relative) {
    auto [it, fresh] = hunks_.try_emplace(relative);
    if (!fresh || view_.base.empty()) return it->second;
    const std::optional<File>& from = At(view_.base, relative);
    const std::optional<File>& to = At(view_.commit, relative);
    if (!from || !from->text || !to || !to->text || HasLoneCarriageReturn(*from->text) ||
        HasLoneCarriageReturn(*to->text)) {
      return it->second;
    }
    const std::optional<std::string> headers =
        from->id == to->id ? std::optional<std::string>("") : git_.DiffHeaders(from->id, to->id);
    if (headers) it->second = ParseDiffHunks(*headers);
    return it->second;
  }

  // Line `line` of `relative` in the numbering `numbering` says, trimmed;
  // nullopt where it is not known.
  std::optional<std::string> TextOf(const std::string& relative, uint64_t line,
                                    const std::string& numbering) {
    const std::optional<File>& file =
        At(numbering == kBaselineNumbering ? view_.base : view_.commit, relative);
    if (!file || !file->text) return std::nullopt;
    const std::optional<std::string> text = SourceLineOf(*file->text, line);
    if (!text) return std::nullopt;
    return TrimmedText(*text);
  }

 private:
  const SourceView view_;
  GitObjects git_;
  std::map<std::pair<std::string, std::string>, std::optional<File>> files_;
  std::map<std::string, std::optional<std::vector<DiffHunk>>> hunks_;
};

// Whether the diff `hunks` changed line `line` of the numbering
// `numbering`: a line of the base the candidate changed or removed, or one
// of the candidate's it added or changed.
bool ChangedBy(const std::vector<DiffHunk>& hunks, uint64_t line, const std::string& numbering) {
  const bool base = numbering == kBaselineNumbering;
  return std::any_of(hunks.begin(), hunks.end(), [&](const DiffHunk& h) {
    const uint64_t start = base ? h.old_start : h.new_start;
    const uint64_t count = base ? h.old_count : h.new_count;
    return line >= start && line - start < count;
  });
}

}  // namespace

std::string CommitNamed(const std::string& root, const std::string& rev) {
  // A revision never starts with "-": that would be an option.
  if (rev.empty() || rev[0] == '-') return "";
  const LaunchResult r = RevParse(root, {"--verify", "--quiet", rev + "^{commit}"});
  return r.ok() ? probe_internal::Trim(r.out) : "";
}

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
  if (ec || !FindRepository(absolute.string(), &view, &why)) {
    view = SourceView{};
    view.note = "no source texts: " + (why.empty() ? dir + " cannot be read" : why);
    return view;
  }
  // Resolved now, before any workload runs: while the candidate runs it can
  // write the checkout's HEAD.
  view.commit = CommitNamed(view.root, "HEAD");
  if (view.commit.empty()) view.note = "no source texts: " + view.root + " has no commit";
  if (!base.empty()) {
    view.base = CommitNamed(view.root, base);
    if (view.base.empty()) {
      view.note =
          "lines matched by number: the source base " + base + " is not a commit of " + view.root;
    }
  }
  if (link == "none") return view;
  view.link = link;
  // The texts come from the checkout's commit, so the links go to it: the
  // candidate's. The CI's own commit is not always that: a pull request's
  // workflow that checks out the head has GITHUB_SHA the merge commit.
  auto commit = [&view](const char* ci) { return view.commit.empty() ? Env(ci) : view.commit; };
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
  if (view.root.empty() || view.commit.empty() || view.base.empty()) return {};
  // Each file's hunks, asked of git once; nullopt: keep its numbers.
  auto files = std::make_shared<CommittedFiles>(view);
  return [view, files](const std::string& candidate_file, uint64_t line) -> uint64_t {
    const std::optional<std::string> rel = PathInCheckout(view.root, candidate_file);
    if (!rel) return line;
    const std::optional<std::vector<DiffHunk>>& hunks = files->HunksOf(*rel);
    return hunks ? LineAfter(*hunks, line) : line;
  };
}

LineTextOf LineTexts(const SourceView& view) {
  if (view.root.empty() || view.commit.empty()) return {};
  auto files = std::make_shared<CommittedFiles>(view);
  return [view, files](const LineDelta& l) -> std::string {
    const std::optional<std::string> rel = PathInCheckout(view.root, l.file);
    if (!rel) return "";
    return files->TextOf(*rel, l.line, l.numbering).value_or("");
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

std::optional<std::string> SourceLineOf(std::string_view content, uint64_t line) {
  if (line == 0) return std::nullopt;
  size_t start = 0;
  for (uint64_t at = 1; at < line; ++at) {
    const size_t feed = content.find('\n', start);
    if (feed == std::string_view::npos) return std::nullopt;
    start = feed + 1;
  }
  if (start >= content.size()) return std::nullopt;
  const size_t feed = content.find('\n', start);
  const size_t end = feed == std::string_view::npos ? content.size() : feed;
  if (HasLoneCarriageReturn(content.substr(0, end == content.size() ? end : end + 1))) {
    return std::nullopt;
  }
  return std::string(content.substr(start, end - start));
}

bool WorkTreeHasBlob(const std::string& root, const std::string& relative,
                     const std::string& format, const std::string& id) {
  const std::optional<std::string> inside = PathInCheckout(root, relative);
  if (!inside || *inside != fs::path(relative).lexically_normal().string()) return false;
  // No symbolic link anywhere on the way: the resolved path must be the
  // lexical one.
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return false;
  const fs::path lexical = real_root / *inside;
  const fs::path real = fs::canonical(lexical, ec);
  if (ec || real != lexical) return false;
  std::string bytes, why;
  if (!ReadRegularFile(lexical.string(), kMaxSourceBytes, &bytes, &why)) return false;
  return GitObjectId(format, "blob", bytes) == id;
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

namespace {

// Fills `l`'s path, text, link and change mark from `files`.
void AttachSourceLine(const SourceView& view, CommittedFiles* files, LineDelta* l) {
  const std::optional<std::string> rel = PathInCheckout(view.root, l->file);
  if (!rel) return;
  const bool base = l->numbering == kBaselineNumbering;
  if (!view.base.empty()) {
    const std::optional<std::vector<DiffHunk>>& hunks = files->HunksOf(*rel);
    if (hunks) l->changed = l->baseline_only || ChangedBy(*hunks, l->line, l->numbering);
  }
  // A baseline line is the base commit's, with no link (the link is to the
  // candidate's); without a base, it has no text.
  const std::optional<CommittedFiles::File>& file = files->At(base ? view.base : view.commit, *rel);
  if (!file) return;
  l->path = *rel;
  const std::optional<std::string> text = files->TextOf(*rel, l->line, l->numbering);
  if (!text) return;
  l->text = *text;
  if (!base) l->url = LineLink(view.link, *rel, l->line);
}

}  // namespace

void AttachSourceLines(const SourceView& view, Explanation* e) {
  if (view.root.empty() || view.commit.empty() || e == nullptr) return;
  CommittedFiles files(view);
  for (FunctionDelta& row : e->rows) {
    for (LineDelta& l : row.lines) {
      AttachSourceLine(view, &files, &l);
      for (LineDelta& f : l.folded) AttachSourceLine(view, &files, &f);
    }
  }
}

}  // namespace workgate
