#pragma once
// The text of an explanation's source lines, and links to them:
// each listed line shown with what it says and, in the Markdown comment, a
// link to it at the candidate's commit.
//
// The files come from the candidate's debug information, which is
// untrusted: a build can name any path (/home/runner/.ssh/id_rsa,
// .git/config with the checkout's token) and give its line a cost; and the
// checkout is the candidate's to write while it is counted. So a line's text
// is never read from the work tree: it is the blob a commit's tree holds at
// that path, a regular file, at most kMaxSourceBytes, read from git's object
// store as data and checked against its name (measure/git_objects.h), at the
// commit the checkout had before anything of the candidate ran: what the
// project's own repository already shows to anyone who can read the pull
// request. The work tree is only compared with it: a file changed since the
// commit was built from other lines, so it gets no text and no link.
// Anything else keeps its file:line and no text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "explain/line_diff.h"
#include "model/model.h"

namespace workgate {

/// Where the lines' texts are read from and linked to.
struct SourceView {
  /// The top level of the git work tree holding the candidate's sources;
  /// empty: no texts, no links.
  std::string root;
  /// The checkout's object directory and its object format ("sha1" or
  /// "sha256"), where the texts are read.
  std::string objects, format;
  /// The candidate's commit: the checkout's HEAD, resolved to its full name
  /// when the view is made, before any workload runs; empty: no texts.
  std::string commit;
  /// A line's address with "{path}" (its path in the checkout, encoded for
  /// a URL) and "{line}" replaced; empty: no links.
  std::string link;
  /// The commit the baseline was built from (--source-base, resolved), so
  /// that a baseline line is matched to where the candidate has it; empty:
  /// lines are matched by number.
  std::string base;
  /// Why there are no texts or no links, for --verbose and the docs; empty
  /// when both are there.
  std::string note;
};

/// Files larger than this are not read for a line's text.
inline constexpr uint64_t kMaxSourceBytes = 16 * 1024 * 1024;
/// A line's text is cut to this many bytes (at a UTF-8 boundary).
inline constexpr size_t kMaxSourceTextBytes = 120;

/// The view for `root_dir` (empty: $GITHUB_WORKSPACE, else $CI_PROJECT_DIR,
/// else the current directory; its git top level is the root) and `link`
/// (empty: GitHub's $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/COMMIT,
/// else GitLab's $CI_PROJECT_URL/-/blob/COMMIT, with "/{path}#L{line}",
/// COMMIT being the checkout's HEAD, else $GITHUB_SHA or $CI_COMMIT_SHA;
/// "none": no links). Never fails: what is missing is said in `note`.
SourceView MakeSourceView(const std::string& root_dir, const std::string& link,
                          const std::string& base = "");

/// The full name of the commit `rev` names in the checkout whose top level
/// is `root` (`git rev-parse --verify REV^{commit}`, the one git command that
/// runs in the checkout); "" when it names none, or starts with '-'.
std::string CommitNamed(const std::string& root, const std::string& rev);

/// One hunk of `git diff -U0`: old lines [old_start, old_start + old_count)
/// became new lines [new_start, new_start + new_count); a count of 0 is an
/// insertion or deletion after old_start (or new_start).
struct DiffHunk {
  uint64_t old_start = 0, old_count = 0, new_start = 0, new_count = 0;
};

/// The hunks of a `git diff -U0` output, in order; lines that are not hunk
/// headers are ignored.
std::vector<DiffHunk> ParseDiffHunks(const std::string& diff);

/// Where baseline line `line` is after `hunks`: its new number, or 0 when a
/// hunk changed or removed it.
uint64_t LineAfter(const std::vector<DiffHunk>& hunks, uint64_t line);

/// The map from a baseline line to the candidate's, through `git diff -U0`
/// of each file's blob at the base commit and at the candidate's; a file
/// either commit lacks as a regular file, that the work tree has changed
/// (WorkTreeHasBlob), or with a lone carriage return (SourceLineOf) keeps its
/// numbers. Empty when `view` has no base.
BaselineLineMap LineAlignment(const SourceView& view);

/// The text of a line in its own numbering (LineDelta::numbering), as
/// AttachSourceLines gives it, for folding lines of one text
/// (explain/line_diff.h: FoldIdenticalLines). Empty when `view` has no
/// commit.
LineTextOf LineTexts(const SourceView& view);

/// Fills `path` (a regular file at the line's commit: the base's for a line
/// in the baseline's numbering, else the candidate's), `text` (that line of
/// the blob, SourceLineOf, trimmed and cut to kMaxSourceTextBytes; the
/// candidate's only where WorkTreeHasBlob; a baseline-numbered line has
/// none without a base), `url` (with a candidate's text) and `changed`
/// (where `view` has a base and the file's diff is known: LineAlignment's
/// hunks hold the line, on its side) of every listed line of `e` that
/// `view` reaches, and of the lines folded into each.
void AttachSourceLines(const SourceView& view, Explanation* e);

/// `file` (a path a profile names) relative to `root`, lexically: an
/// absolute path inside `root`, or a relative one that stays inside it;
/// nullopt otherwise. No file is touched.
std::optional<std::string> PathInCheckout(const std::string& root, const std::string& file);

/// Line `line` (from 1) of `content` as git numbers lines: each ends at a
/// line feed, and a last one without it counts. nullopt when there is no
/// such line, or when a carriage return not followed by a line feed comes
/// before its end: GCC and Clang end a line there and git does not, so
/// from there on the line a build's debug information names by a number is
/// another one than git's (and a link's) of that number.
std::optional<std::string> SourceLineOf(std::string_view content, uint64_t line);

/// Whether the work tree at `root` has at `relative` a regular file,
/// reached through no symbolic link and at most kMaxSourceBytes, whose bytes
/// are the blob `id` of `format`: the source that was built is the
/// committed one. The file is hashed, never quoted.
bool WorkTreeHasBlob(const std::string& root, const std::string& relative,
                     const std::string& format, const std::string& id);

/// `link` with {path} (each byte outside RFC 3986's unreserved set and '/'
/// percent-encoded) and {line} replaced; empty when the result is not an
/// http(s) URL of plain characters (IsPlainHttpUrl).
std::string LineLink(const std::string& link, const std::string& path, uint64_t line);

}  // namespace workgate
