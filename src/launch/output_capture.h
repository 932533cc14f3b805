#pragma once
// What workgate keeps of a workload's output. The output is untrusted and
// unbounded (a candidate may print gigabytes), so it is read as a stream and
// only a bounded head and tail are kept for messages; the lines a score
// pattern needs are handed to a callback as they arrive, never stored.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace workgate {

/// Bytes kept from the start and from the end of each stream.
inline constexpr size_t kCaptureHeadBytes = 64 * 1024;
inline constexpr size_t kCaptureTailBytes = 64 * 1024;
/// The longest line handed to a line callback; the rest of a longer line is
/// dropped (its first kMaxLineBytes bytes are delivered once).
inline constexpr size_t kMaxLineBytes = 64 * 1024;

/// One output stream, fed chunk by chunk.
class OutputCapture {
 public:
  /// `on_line` (may be empty) receives every line without its '\n', cut to
  /// kMaxLineBytes, as soon as it is complete; the last line also when the
  /// stream ends without a newline (Finish).
  explicit OutputCapture(std::function<void(std::string_view)> on_line = {});

  void Feed(std::string_view chunk);
  /// The stream ended: delivers a last unterminated line.
  void Finish();

  /// Everything, when the stream fit in head and tail; else the head, a line
  /// "[... N bytes of output not kept ...]" and the tail.
  std::string Text() const;
  uint64_t total_bytes() const { return total_; }

 private:
  void Keep(std::string_view chunk);

  std::function<void(std::string_view)> on_line_;
  std::string head_;
  std::string tail_;      // ring buffer of the last kCaptureTailBytes once full
  size_t tail_start_ = 0; // oldest byte of the ring
  uint64_t total_ = 0;
  std::string line_;  // the line being assembled, at most kMaxLineBytes
};

}  // namespace workgate
