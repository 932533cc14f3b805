#pragma once
// What every view of the history (terminal, HTML) says the same way: the
// verdict sentence of a series, its noise floor, and the cells of its table.
// The cells are raw text: refs, dates and condition names come from records
// anyone could have written, so each renderer escapes them for its medium.

#include <string>
#include <vector>

#include "model/history.h"
#include "report/format.h"

namespace workgate {

/// What a series' window did, by the work of the program: kAdded when a step
/// over the margin rose or a rise drifted (work added, even if a later step
/// took more away), else kRemoved when a step fell or a fall drifted, else
/// kUnchanged. Every view colours a series by it: added red, removed green,
/// unchanged neutral.
enum class HistoryDirection { kAdded, kRemoved, kUnchanged };
HistoryDirection DirectionOf(const WorkloadHistory& h);

/// The direction of point `i`'s step when it crosses the margin
/// (StepCrossesMargin), else kUnchanged.
HistoryDirection StepDirection(const WorkloadHistory& h, size_t i);

/// "added", "removed", "unchanged": the name of `d` in JSON and CSS classes.
const char* DirectionName(HistoryDirection d);

/// The headline of a series, one sentence without a final period, in parts
/// joined by "; ": the change over the window's last segment ("+6.51% over
/// the last 4 commits", "... since the break" where a break starts it), its
/// steps over the margin ("one step of +5.58% at 8ed0342 (work added by that
/// commit, for its own gate to judge)", "3 steps over the margin: +5.58% at
/// 8ed0342, ..."), and its drift: "drift: no step crossed the 1.00% margin"
/// when the whole segment drifted, else "drift: +3.02% from 1a2b3c4 to
/// 5d6e7f8 (5 commits), no step of it over the 1.00% margin"; on perf "no
/// drift: ... is within the noise (±0.149%)" or "no drift decided: ..., too
/// few differences to estimate the noise". A segment with neither steps nor
/// drift ends in "no step or drift beyond the 1.00% margin".
std::string HistoryHeadline(const WorkloadHistory& h, Minus minus);

/// A ref as a headline names it: a full commit id (40 or 64 hex digits)
/// by its first 7, anything else cut to 24 code points. Raw text, for the
/// renderer to escape.
std::string ShortRef(const std::string& ref);

/// The noise floor of a series on a backend whose counts vary: "noise floor
/// 0.0123% of a count, from 9 differences; drift must exceed ±0.0522%" or
/// "noise floor: 2 differences, at least 3 are needed"; "" on an exact
/// backend.
std::string HistoryNoise(const WorkloadHistory& h);

/// The largest change the noise explains on perf, 3 * sqrt(2) *
/// noise_floor (WorkloadHistory's drift rule).
double NoiseLimit(double noise_floor);

/// "1,204,331,907", or "1,204,331,907.5" for the median of an even number of
/// counts.
std::string FormatMedianCount(double value);

/// Whether some point of `h` has a subject (--record-subject).
bool HasSubjects(const WorkloadHistory& h);

/// The most code points of a subject a table cell or tooltip shows; the
/// terminal cuts it shorter (history_text.cc).
inline constexpr size_t kShownSubject = 120;

/// The table's header: ref, commit date, count, step, cumulative, marks,
/// and subject where HasSubjects(h).
std::vector<std::string> HistoryTableHeader(const WorkloadHistory& h);

/// A point's date, as ReadableUtc writes it: its commit's ("2026-12-01
/// 03:04 UTC"), or where the record has none (its ref was no commit of the
/// checkout, or a workgate that kept no commit dates recorded it) the time
/// it was recorded, said as such ("recorded 2026-12-01 03:04 UTC").
std::string DateCell(const HistoryRecord& record);

/// One row per point of the window, oldest first, in the header's columns
/// (the date as DateCell writes it):
/// "-" for a step or cumulative change that does not exist; the marks are
/// "break: valgrind, workgate changed" (or "break: conditions changed") and
/// "step over the margin" for a step within the window that crossed it;
/// the subject, cut to kShownSubject code points, or "" for a point without.
std::vector<std::vector<std::string>> HistoryTableRows(const WorkloadHistory& h, Minus minus);

/// Whether the step of point `i` of `h` crosses the margin and is one of the
/// window's own steps (not the step into its first point).
bool StepCrossesMargin(const WorkloadHistory& h, size_t i);

/// "vgcount, Ir, margin 1.00%": what a series was counted with.
std::string HistorySubtitle(const WorkloadHistory& h);

}  // namespace workgate
