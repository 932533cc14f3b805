#include "counter/profile_lines.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <optional>
#include <vector>

namespace workgate {

namespace {

// The markers vgcount writes for a file (tools/vgcount/vgcount_lines.c).
constexpr std::string_view kLineMarker = "\x01L";      // a block's line: else the function's file, 0
constexpr std::string_view kUnknownMarker = "\x01U";   // a site's line: else "???", 0
constexpr std::string_view kFunctionMarker = "\x01" "F";  // "\x01FHEX\x01OBJECT": a function's file

bool IsFileKey(std::string_view key) {
  return key == "fl" || key == "fi" || key == "fe" || key == "cfi" || key == "cfl";
}

std::optional<uint64_t> Number(std::string_view text, int base = 10) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

class Rewriter {
 public:
  Rewriter(const LineLookup& lookup, std::ostream* out) : lookup_(lookup), out_(out) {}

  bool Line(std::string_view line, std::string* err) {
    if (line.empty() || line[0] == '#') return Emit(line);
    const size_t eq = line.find('=');
    const size_t colon = line.find(':');
    if (eq != std::string_view::npos && (colon == std::string_view::npos || eq < colon)) {
      const std::string_view key = line.substr(0, eq);
      const std::string_view value = line.substr(eq + 1);
      if (key == "calls") {
        pending_.emplace_back(line);
        call_cost_next_ = true;
        return true;
      }
      if (IsFileKey(key)) return FileLine(key, value, err);
      // ob=, cob=, fn=, cfn= and anything else: as it is (a call's
      // specification waits with its call).
      if (key == "cob" || key == "cfn") {
        pending_.emplace_back(line);
        return true;
      }
      return Emit(line);
    }
    if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' || line[0] == '-' || line[0] == '*') {
      return CostLine(line, err);
    }
    return Emit(line);  // a header line ("events: Ir", "totals: ...")
  }

  bool Finish(std::string* err) {
    if (!pending_.empty()) {
      *err = "a call without its cost line at the end";
      return false;
    }
    return true;
  }

 private:
  bool Emit(std::string_view line) {
    out_->write(line.data(), static_cast<std::streamsize>(line.size()));
    out_->put('\n');
    return true;
  }

  // "KEY=(N) NAME", "KEY=(N)" or "KEY=NAME": the name, remembered by N.
  bool ReadName(std::string_view value, std::string* name, std::string* err) {
    if (value.empty() || value[0] != '(') {
      *name = std::string(value);
      return true;
    }
    const size_t close = value.find(')');
    const std::optional<uint64_t> id =
        close == std::string_view::npos ? std::nullopt : Number(value.substr(1, close - 1));
    if (!id) {
      *err = "a malformed name number";
      return false;
    }
    if (close + 1 < value.size()) {
      *name = std::string(value.substr(close + 1 + (value[close + 1] == ' ' ? 1 : 0)));
      files_in_[*id] = *name;
      return true;
    }
    const auto found = files_in_.find(*id);
    if (found == files_in_.end()) {
      *err = fmt::format("file number {} used before it is named", *id);
      return false;
    }
    *name = found->second;
    return true;
  }

  // The file a function's own marker names: its first instruction's.
  std::string FunctionFile(const std::string& name) {
    if (name.starts_with(kFunctionMarker)) {
      const size_t sep = name.find('\x01', kFunctionMarker.size());
      const std::optional<uint64_t> address =
          sep == std::string::npos
              ? std::nullopt
              : Number(std::string_view(name).substr(kFunctionMarker.size(),
                                                     sep - kFunctionMarker.size()),
                       16);
      std::string file;
      uint32_t line = 0;
      if (address && lookup_(name.substr(sep + 1), *address, &file, &line)) return file;
      return "???";
    }
    if (name.starts_with(kLineMarker) || name.starts_with(kUnknownMarker)) return "???";
    return name;
  }

  // "KEY=(N) NAME" for an output file, its name given the first time.
  std::string FileRef(std::string_view key, const std::string& name) {
    auto [it, added] = files_out_.try_emplace(name, files_out_.size() + 1);
    return added ? fmt::format("{}=({}) {}", key, it->second, name)
                 : fmt::format("{}=({})", key, it->second);
  }

  bool FileLine(std::string_view key, std::string_view value, std::string* err) {
    std::string name;
    if (!ReadName(value, &name, err)) return false;
    if (key == "fl") {
      function_file_ = FunctionFile(name);
      current_in_ = name;
      current_out_ = function_file_;
      return Emit(FileRef("fl", function_file_));
    }
    if (key == "fi" || key == "fe") {
      current_in_ = name;  // written with the next cost line that needs it
      return true;
    }
    // cfi=, cfl=: the callee's own file.
    pending_.push_back(FileRef("cfi", FunctionFile(name)));
    return true;
  }

  // The file and line of position `at` under the current input file.
  void Resolve(uint64_t at, std::string* file, uint64_t* line) {
    const std::string& in = current_in_;
    const bool block = in.starts_with(kLineMarker);
    if (block || in.starts_with(kUnknownMarker)) {
      std::string named;
      uint32_t number = 0;
      if (lookup_(in.substr(2), at, &named, &number)) {
        *file = std::move(named);
        *line = number;
      } else {
        *file = block ? function_file_ : "???";
        *line = 0;
      }
      return;
    }
    *file = in.starts_with(kFunctionMarker) ? function_file_ : in;
    *line = at;
  }

  bool CostLine(std::string_view line, std::string* err) {
    const size_t space = line.find(' ');
    const std::string_view position = line.substr(0, space);
    const std::optional<uint64_t> at = Number(position);
    if (!at) {
      *err = fmt::format("a position vgcount does not write: \"{}\"", position);
      return false;
    }
    std::string file;
    uint64_t number = 0;
    Resolve(*at, &file, &number);
    if (file != current_out_) {
      current_out_ = file;
      Emit(FileRef(file == function_file_ ? "fe" : "fi", file));
    }
    for (const std::string& held : pending_) Emit(held);
    pending_.clear();
    call_cost_next_ = false;
    *out_ << number;
    if (space != std::string_view::npos) Emit(line.substr(space));
    else out_->put('\n');
    return true;
  }

  const LineLookup& lookup_;
  std::ostream* out_;
  std::map<uint64_t, std::string> files_in_;
  std::map<std::string, size_t> files_out_;
  std::string function_file_;
  std::string current_in_;
  std::string current_out_;
  std::vector<std::string> pending_;
  bool call_cost_next_ = false;
};

}  // namespace

bool HasAddressLines(std::istream& in) {
  // A marker starts with \x01, which no name vgcount writes otherwise holds
  // (a file name from debug information could, and is then rewritten as it
  // is: a needless pass, never a wrong one).
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    if (std::string_view(buffer, static_cast<size_t>(in.gcount())).find('\x01') !=
        std::string_view::npos) {
      return true;
    }
  }
  return false;
}

bool NameProfileLines(std::istream& in, const LineLookup& lookup, std::ostream& out,
                      std::string* err, size_t max_line_bytes) {
  Rewriter rewriter(lookup, &out);
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.size() > max_line_bytes) {
      *err = fmt::format("line {}: longer than {} bytes", number, max_line_bytes);
      return false;
    }
    if (!rewriter.Line(line, err)) {
      *err = fmt::format("line {}: {}", number, *err);
      return false;
    }
  }
  if (!rewriter.Finish(err)) return false;
  if (!out) {
    *err = "cannot write the named profile";
    return false;
  }
  return true;
}

}  // namespace workgate
