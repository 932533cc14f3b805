#pragma once
// What the result store writes into a row and checks when it reads one back:
// the text form of counts, the exact timestamp form, the bounds of an entry
// and of a history record, and the checksums over a canonical encoding of
// every field. Pure functions: the SQL lives in result_store.cc and
// history_store.cc.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/history.h"
#include "store/result_store.h"

namespace workgate {

/// Whether `text` is "YYYY-MM-DDTHH:MM:SSZ" exactly, and a real date and time.
bool IsStoreTimestamp(std::string_view text);

/// Whether `text` is 64 lower-case hex digits: a count key or a SHA-256.
bool IsHexDigest(std::string_view text);

/// Counts as a row holds them: decimal numbers separated by commas.
std::string EncodeCounts(const std::vector<uint64_t>& counts);

/// Reads EncodeCounts' form back: 1 to kMaxStoredCounts numbers, each of
/// decimal digits only and within uint64_t. False with `*why` otherwise.
bool ParseCounts(std::string_view text, std::vector<uint64_t>* counts, std::string* why);

/// Simulated events as a row holds them: the instructions, then each event
/// in kSimulatedEventNames' order, as EncodeCounts writes numbers; "" for
/// none.
std::string EncodeSimulated(const std::optional<SimulatedEvents>& events);
/// Reads EncodeSimulated's form back ("" is none). False with `*why`.
bool ParseSimulated(std::string_view text, std::optional<SimulatedEvents>* events,
                    std::string* why);

/// The SHA-256 over an entry's profiles in order: each name and the SHA-256
/// of each file's contents. A
/// cache row keeps it beside its checksum, so that appending counts re-signs
/// the row without reading megabytes of profiles; Find checks it against the
/// profiles it reads.
std::string ProfilesDigest(const std::vector<std::pair<std::string, std::string>>& profiles);

/// The checksum of a cache entry: SHA-256 over its key and every field,
/// the profiles by their digest.
std::string EntryChecksum(const std::string& key, const StoredCount& entry,
                          const std::string& profiles_digest);

/// What about `entry` is beyond the store's bounds or malformed, "" when
/// nothing: counts (1 to kMaxStoredCounts), texts (kMaxStoredTextBytes
/// each), counted_at's form, profiles (kMaxStoredProfileFiles files of at
/// most kMaxStoredProfileBytes in all, names as texts).
std::string EntryProblem(const StoredCount& entry);

/// Whether the profiles fit the store's bounds.
bool ProfilesFit(const std::vector<std::pair<std::string, std::string>>& profiles);

/// condition_parts as stored: a JSON object of strings (bytes that are not
/// UTF-8 become U+FFFD, as in every JSON workgate writes).
std::string ConditionPartsJson(const std::map<std::string, std::string>& parts);

/// Reads ConditionPartsJson's form back; false with `*why` for anything else.
bool ParseConditionParts(std::string_view json, std::map<std::string, std::string>* parts,
                         std::string* why);

/// The checksum of a history record, with its condition parts as the JSON
/// text the row holds.
std::string HistoryChecksum(const HistoryRecord& record, std::string_view parts_json);

/// What about `record` is beyond the store's bounds or malformed, "" when
/// nothing: counts (1 to kMaxStoredCounts), texts and the parts' JSON
/// (kMaxStoredTextBytes each), recorded_at's form, max_work_added (finite,
/// 0 to 10).
std::string RecordProblem(const HistoryRecord& record, std::string_view parts_json);

/// `text` cut to a short, printable form for a note about a stored value
/// that may have been written by anyone.
std::string NoteText(std::string_view text);

}  // namespace workgate
