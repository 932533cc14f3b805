#include "workload/path_hint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <vector>

namespace workgate {

namespace {

// Whether `arg` reads as a relative path: no placeholder, not absolute, and
// with a folder in it or a file name's extension.
bool LooksRelative(std::string_view arg) {
  if (arg.empty() || arg[0] == '/' || arg.find('{') != std::string_view::npos ||
      arg.find("://") != std::string_view::npos) {
    return false;
  }
  if (arg.find('/') != std::string_view::npos) return true;
  const size_t dot = arg.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == arg.size() || arg.size() - dot > 6) {
    return false;
  }
  for (size_t i = dot + 1; i < arg.size(); ++i) {
    if (!isalpha(static_cast<unsigned char>(arg[i]))) return false;  // "1.5" is a number
  }
  return true;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// What may be quoted of the program's output: a short path of plain
// characters, which no terminal, Markdown or JSON reads as anything else.
bool Quotable(std::string_view path) {
  constexpr size_t kMaxPath = 200;
  return !path.empty() && path.size() <= kMaxPath && path != "." && path != ".." &&
         path[0] != '-' && std::all_of(path.begin(), path.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) ||
                  std::string_view("._+-@~/").find(c) != std::string_view::npos;
         });
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Whether a line of output says a file was not found, in the words of
// perror and strerror, of runtimes' exceptions and of common programs.
bool SaysNotFound(std::string_view line) {
  static const char* const kPhrases[] = {
      "no such file",     "not found",         "filenotfound",    "enoent",
      "does not exist",   "doesn't exist",     "cannot open",     "can't open",
      "could not open",   "couldn't open",     "unable to open",  "failed to open",
      "error opening",    "cannot find",       "can't find",      "could not find",
      "cannot read",      "can't read",        "could not read",  "cannot stat",
  };
  const std::string lower = Lower(line);
  // The loader's "cannot open shared object file" names a library, which a
  // working directory does not change.
  if (lower.find("shared object") != std::string::npos ||
      lower.find("shared librar") != std::string::npos) {
    return false;
  }
  return std::any_of(std::begin(kPhrases), std::end(kPhrases), [&lower](const char* phrase) {
    return lower.find(phrase) != std::string::npos;
  });
}

// The words of a line: split at white space and quotes, without the
// brackets and punctuation around them, each cut at its first ':'
// ("x.lua:3:") and started after an '=' ("--in=x").
std::vector<std::string_view> Words(std::string_view line) {
  constexpr std::string_view kSpace = " \t\r'\"`";
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    const size_t start = line.find_first_not_of(kSpace, i);
    if (start == std::string_view::npos) break;
    size_t end = line.find_first_of(kSpace, start);
    if (end == std::string_view::npos) end = line.size();
    std::string_view word = line.substr(start, end - start);
    while (!word.empty() && std::string_view("([<{").find(word.front()) != std::string_view::npos) {
      word.remove_prefix(1);
    }
    if (const size_t eq = word.find('='); eq != std::string_view::npos) word.remove_prefix(eq + 1);
    if (const size_t colon = word.find(':'); colon != std::string_view::npos) {
      word = word.substr(0, colon);
    }
    while (!word.empty() && std::string_view(")]}>,;.").find(word.back()) != std::string_view::npos) {
      word.remove_suffix(1);
    }
    if (!word.empty()) words.push_back(word);
    i = end;
  }
  return words;
}

// The first relative path the output names as not found, which `run_dir`
// does not hold; "" for none.
std::string PathInOutput(const Workload& w, const std::string& run_dir, std::string_view output) {
  constexpr size_t kMaxLines = 1000;
  constexpr size_t kMaxLine = 2000;
  size_t lines = 0;
  for (size_t at = 0; at < output.size() && lines < kMaxLines; ++lines) {
    size_t end = output.find('\n', at);
    if (end == std::string_view::npos) end = output.size();
    const std::string_view line = output.substr(at, std::min(end - at, kMaxLine));
    at = end + 1;
    if (!SaysNotFound(line)) continue;
    for (std::string_view word : Words(line)) {
      if (!Quotable(word) || !LooksRelative(word)) continue;
      const std::string path(word);
      if (!w.command.empty() && path == w.command[0]) continue;  // the program's own name
      if (!Exists(run_dir + "/" + path)) return path;
    }
  }
  return "";
}

// The first argument of the command that reads as a relative path that
// `run_dir` does not hold; "" for none.
std::string PathInCommand(const Workload& w, const std::string& run_dir) {
  for (size_t i = 0; i < w.command.size(); ++i) {
    std::string_view arg = w.command[i];
    if (i > 0 && arg.size() > 1 && arg[0] == '-') {
      const size_t eq = arg.find('=');
      if (eq == std::string_view::npos) continue;
      arg = arg.substr(eq + 1);
    }
    if (!LooksRelative(arg)) continue;
    const std::string path(arg);
    if (!Exists(run_dir + "/" + path)) return path;
  }
  return "";
}

}  // namespace

std::string RelativePathHint(const Workload& w, const std::string& suite_dir,
                             const std::string& run_dir, std::string_view output) {
  if (run_dir.empty()) return "";
  std::string path = PathInOutput(w, run_dir, output);
  std::string lead;
  if (!path.empty()) {
    lead = fmt::format("the program's output mentions {}, a relative path", path);
  } else if (Lower(output).find("no such file or directory") != std::string::npos) {
    path = PathInCommand(w, run_dir);
    lead = path + " is a relative path";
  }
  if (path.empty() || !Quotable(path)) return "";
  if (suite_dir.empty()) {
    return fmt::format(
        "{}, and a workload runs in an empty private directory, not where workgate started: "
        "give it as an absolute path (\"$PWD/{}\")",
        lead, path);
  }
  if (Exists(suite_dir + "/" + path)) {
    return fmt::format(
        "{}, and a workload runs in an empty private directory, not in the suite's folder or "
        "where workgate started: the suite's folder has {}, so name it {{suite_dir}}/{}",
        lead, path, path);
  }
  return fmt::format(
      "{}, and a workload runs in an empty private directory, not in the suite's folder or "
      "where workgate started: name a file beside the suite as {{suite_dir}}/{}, or give an "
      "absolute path",
      lead, path);
}

}  // namespace workgate
