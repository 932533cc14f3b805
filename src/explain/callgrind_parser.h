#pragma once
// The line-by-line state machine behind ParseCallgrind (callgrind_profile.h).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "explain/callgrind_profile.h"
#include "model/simulated_events.h"

namespace workgate::callgrind {

/// Hashes std::string keys so that lookups by std::string_view need no copy.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIndex = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;

/// The longest line a callgrind file may have. Lines are short but for names,
/// and mangled C++ names reach tens of KiB; the bound keeps what a hostile
/// file can make the parser hold for one line small.
inline constexpr size_t kMaxLineBytes = 16 << 20;

/// The memory a name table entry is charged besides its bytes
/// (ProfileBounds::name_bytes): a hash node and a string's own size.
inline constexpr size_t kNameEntryBytes = 64;

/// Reads one callgrind output file, fed in chunks of any size, or the files
/// of one profile one after another (StartFile).
class Parser {
 public:
  /// What the parse keeps besides the checks, which are the same for both.
  enum class Mode {
    /// The self cost per function and object, per source line of each, and
    /// the call edges' costs (AddTo), for explain.
    kSelfCost,
    /// Only the file's total (total()), for the gate: names are neither
    /// demangled nor kept, and every part must end with its totals: line.
    kTotal,
  };
  /// `event` is the event whose column is summed ("Ir"). Mode::kSelfCost
  /// keeps its tables within `bounds` (ProfileBounds); Mode::kTotal keeps
  /// none of them, and no bound changes a total.
  explicit Parser(std::string event, Mode mode = Mode::kSelfCost, ProfileBounds bounds = {});

  /// Parses the next piece of the file; a line may span pieces. False on
  /// the first error (see Error); later calls then do nothing.
  bool Feed(std::string_view chunk);
  /// Parses the last line and checks that the file is complete.
  bool Finish();
  /// The 1-based line of the error and what is wrong (without the line).
  void Error(size_t* line, std::string* err) const;

  /// Feed(text), then Finish; on error sets `*line` and `*err` as Error does.
  bool Parse(std::string_view text, size_t* line, std::string* err);
  /// After Finish returned true: the next file of the same profile follows.
  /// Its names and costs add to this one's, and the bounds hold for both;
  /// name ids, the header and line numbers start again, as in a new file.
  void StartFile();

  /// Adds the parsed self costs to `*profile`, and the costliest call edges
  /// and lines within the bounds, with what was left out (Profile::calls_cut,
  /// lines_cut); false if a sum overflows. Mode::kSelfCost only.
  bool AddTo(Profile* profile, std::string* err) const;
  /// The sum of every part's cost lines. Mode::kTotal only.
  uint64_t total() const { return total_; }

  /// Before the first Feed: sum the simulated events (kSimulatedEventNames)
  /// too, per file (simulated_total) and, in Mode::kSelfCost, per function
  /// and per kept line (AddTo), where every part's events: line lists them
  /// all. Their tables are bounded as the primary event's are.
  void TrackSimulated() { track_simulated_ = true; }
  /// With TrackSimulated, after Finish: whether every part listed all the
  /// simulated events, and their totals. Mode::kTotal only.
  bool simulated_listed() const { return track_simulated_ && simulated_listed_; }
  const SimulatedCosts& simulated_total() const { return total_simulated_; }

 private:
  struct FnEntry {
    std::string raw;
    uint32_t display;  // index into fn_names_
  };
  struct ObjEntry {
    std::string raw;
    uint32_t basename;  // index into obj_names_
  };

  bool Lines(std::string_view text);
  bool Line(std::string_view line);
  bool HeaderLine(std::string_view key, std::string_view value);
  bool PositionLine(std::string_view key, std::string_view value);
  bool CostLine(std::string_view line);
  bool CallsLine(std::string_view value);
  bool EventsLine(std::string_view value);
  bool PositionsLine(std::string_view value);
  bool SummaryOrTotals(std::string_view key, std::string_view value);
  bool FunctionSpec(std::string_view key, std::string_view value, uint32_t* display);
  bool FunctionDisplay(std::string_view raw, uint32_t* display);
  bool ObjectBasename(std::string_view path, uint32_t* basename);
  bool InternName(std::string_view name, StringIndex* index, std::vector<std::string>* names,
                  uint32_t* at);
  bool ObjectSpec(std::string_view key, std::string_view value, uint32_t* basename);
  bool FileSpec(std::string_view key, std::string_view value, uint32_t* file);
  bool Position(const char** p, const char* end, int index);
  bool ParseCosts(std::string_view costs, uint64_t* event_cost);
  /// Whether the cost lines' simulated events are summed now.
  bool simulated() const { return track_simulated_ && simulated_listed_; }
  /// Adds the last cost line's simulated costs to `*into`; false on overflow.
  bool AddSimulated(SimulatedCosts* into);
  bool FinishPart();
  void BeginPart();
  bool Fail(std::string message);
  /// Charges a new name table entry of `bytes` to the name memory; false
  /// (failed) beyond ProfileBounds::name_bytes. `file_ids`: an entry of
  /// this file's id tables, which the next file starts without.
  bool ChargeName(size_t bytes, bool file_ids = false);
  bool AddCall(uint64_t cost);
  void AddLine(uint64_t source_line, uint64_t cost);
  static uint32_t Intern(std::string_view name, StringIndex* index,
                         std::vector<std::string>* names);

  std::string event_;
  Mode mode_;
  ProfileBounds bounds_;
  size_t name_bytes_ = 0;     // charged to bounds_.name_bytes
  size_t file_id_bytes_ = 0;  // of which this file's id tables, freed with them
  size_t line_no_ = 0;
  std::string error_;
  bool failed_ = false;
  bool input_seen_ = false;
  std::string partial_line_;  // the end of the last chunk, up to kMaxLineBytes
  uint64_t total_ = 0;        // Mode::kTotal: the finished parts' sums

  // Header state.
  bool events_seen_ = false;  // in the whole file
  int event_index_ = -1;      // the column of event_ in cost lines
  int event_count_ = 0;
  int position_count_ = 1;  // "positions:" defaults to "line"
  int line_position_ = 0;   // the index of "line" among them; -1 for none
  /// Each subposition's last value on a cost line, which relative ones
  /// (+N, -N, *) refer to; a calls= line's target does not change it (as
  /// callgrind writes and callgrind_annotate reads it).
  uint64_t last_position_[3] = {0, 0, 0};

  // Name compression tables; ids live for the whole file (with
  // --combine-dumps=yes later parts refer to ids defined by earlier ones).
  std::unordered_map<uint64_t, FnEntry> fn_ids_;
  std::unordered_map<uint64_t, ObjEntry> obj_ids_;
  std::unordered_map<uint64_t, uint32_t> file_ids_;  // id -> index into file_names_
  StringIndex file_index_;
  std::vector<std::string> file_names_;
  StringIndex plain_fn_cache_;  // display of names given without an id
  StringIndex fn_index_;
  std::vector<std::string> fn_names_;
  StringIndex obj_index_;
  std::vector<std::string> obj_names_;
  StringIndex obj_path_index_;                       // a path as written -> index into obj_names_
  std::vector<std::vector<std::string>> obj_paths_;  // per obj_names_ entry, kMaxPathsPerObject

  // Where cost lines go: self cost per (function, object), and per
  // (function, object, file, line); call costs per (caller, callee).
  struct LineKey {
    uint32_t fn, obj, file;
    uint64_t line;
    bool operator==(const LineKey&) const = default;
  };
  struct LineKeyHash {
    size_t operator()(const LineKey& k) const {
      return std::hash<uint64_t>{}((static_cast<uint64_t>(k.fn) << 32 | k.obj) ^
                                   (static_cast<uint64_t>(k.file) << 40) ^
                                   k.line * 0x9e3779b97f4a7c15u);
    }
  };
  struct EdgeKey {
    uint32_t fn, obj, cfn, cobj;
    bool operator==(const EdgeKey&) const = default;
  };
  struct EdgeKeyHash {
    size_t operator()(const EdgeKey& k) const {
      return std::hash<uint64_t>{}(
          (static_cast<uint64_t>(k.fn) << 32 | k.obj) ^
          ((static_cast<uint64_t>(k.cfn) << 32 | k.cobj) * 0x9e3779b97f4a7c15u));
    }
  };
  std::unordered_map<uint64_t, uint64_t> self_;
  std::unordered_map<LineKey, uint64_t, LineKeyHash> line_self_;
  std::unordered_map<EdgeKey, CallCost, EdgeKeyHash> calls_;
  // The files named more distinct lines or call edges than bounds_ reads:
  // that table is emptied and stays empty.
  bool lines_dropped_ = false;
  bool calls_dropped_ = false;
  std::optional<uint32_t> current_fn_;
  uint32_t current_obj_ = 0;   // index of "" until an "ob=" line
  uint32_t current_file_ = 0;  // index of "" until an "fl=" line
  uint64_t* current_cost_ = nullptr;
  // The callee of the next calls= line: cfn= names it, cob= its object
  // (the caller's where none is named); both are used up by the call.
  std::optional<uint32_t> callee_fn_;
  std::optional<uint32_t> callee_obj_;
  uint64_t pending_calls_ = 0;  // the count of the calls= line awaiting its cost line

  // The simulated events (TrackSimulated): each column's index among them
  // (-1: another event), whether every events: line so far listed them all,
  // the last cost line's, the part's and (Mode::kTotal) the file's sums, and
  // (Mode::kSelfCost) per function and line, keyed as self_ and line_self_.
  bool track_simulated_ = false;
  std::vector<int> simulated_column_;
  bool simulated_listed_ = true;
  SimulatedCosts line_simulated_ = {};
  SimulatedCosts part_simulated_ = {};
  SimulatedCosts total_simulated_ = {};
  std::unordered_map<uint64_t, SimulatedCosts> self_simulated_;
  std::unordered_map<LineKey, SimulatedCosts, LineKeyHash> line_simulated_table_;
  SimulatedCosts* current_simulated_ = nullptr;

  // Part state.
  bool part_has_body_ = false;
  bool part_closed_ = false;  // a "totals:" line ended it
  std::optional<uint64_t> part_summary_;
  size_t part_summary_line_ = 0;
  bool part_totals_seen_ = false;
  uint64_t part_sum_ = 0;
  int parts_ = 0;
  int file_parts_ = 0;            // parts_ when this file started
  size_t pending_call_line_ = 0;  // a "calls=" line awaiting its cost line
};

}  // namespace workgate::callgrind
