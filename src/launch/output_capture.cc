#include "launch/output_capture.h"

#include <fmt/format.h>

#include <algorithm>

namespace workgate {

OutputCapture::OutputCapture(std::function<void(std::string_view)> on_line)
    : on_line_(std::move(on_line)) {}

void OutputCapture::Feed(std::string_view chunk) {
  total_ += chunk.size();
  Keep(chunk);
  if (!on_line_) return;
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    std::string_view piece = chunk.substr(0, nl);
    // Past kMaxLineBytes the rest of the line is dropped until its newline.
    if (line_.size() < kMaxLineBytes) line_.append(piece.substr(0, kMaxLineBytes - line_.size()));
    if (nl == std::string_view::npos) break;
    on_line_(line_);
    line_.clear();
    chunk.remove_prefix(nl + 1);
  }
}

void OutputCapture::Keep(std::string_view chunk) {
  const size_t to_head = std::min(chunk.size(), kCaptureHeadBytes - head_.size());
  head_.append(chunk.substr(0, to_head));
  chunk.remove_prefix(to_head);
  if (chunk.size() >= kCaptureTailBytes) {
    tail_.assign(chunk.substr(chunk.size() - kCaptureTailBytes));
    tail_start_ = 0;
    return;
  }
  // Fill the ring, then overwrite its oldest bytes, in at most two copies.
  const size_t fill = std::min(chunk.size(), kCaptureTailBytes - tail_.size());
  tail_.append(chunk.substr(0, fill));
  chunk.remove_prefix(fill);
  while (!chunk.empty()) {
    const size_t n = std::min(chunk.size(), kCaptureTailBytes - tail_start_);
    tail_.replace(tail_start_, n, chunk.substr(0, n));
    tail_start_ = (tail_start_ + n) % kCaptureTailBytes;
    chunk.remove_prefix(n);
  }
}

void OutputCapture::Finish() {
  if (on_line_ && !line_.empty()) on_line_(line_);
  line_.clear();
}

std::string OutputCapture::Text() const {
  std::string tail = tail_.substr(tail_start_) + tail_.substr(0, tail_start_);
  const uint64_t kept = head_.size() + tail.size();
  if (kept == total_) return head_ + tail;
  return fmt::format("{}\n[... {} bytes of output not kept ...]\n{}", head_, total_ - kept, tail);
}

}  // namespace workgate
