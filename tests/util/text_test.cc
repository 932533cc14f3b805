#include "util/text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch/launch.h"
#include "util/paths.h"

namespace workgate {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(TextTest, ValidUtf8KeepsWellFormedText) {
  const std::string text = "ascii \u00e9 \u20ac \U0001F600 \uFFFF \U0010FFFF";
  EXPECT_EQ(ValidUtf8(text), text);
  EXPECT_EQ(ValidUtf8(""), "");
  EXPECT_EQ(ValidUtf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(TextTest, ValidUtf8ReplacesEachMaximalSubpart) {
  // The example of the Unicode standard (3.9, U+FFFD substitution of maximal
  // subparts): a truncated 4-byte and 3-byte sequence, a truncated 2-byte
  // one, and stray continuation bytes.
  EXPECT_EQ(ValidUtf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), kFffd + kFffd);              // overlong '/'
  EXPECT_EQ(ValidUtf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);  // overlong, 3 bytes
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // a surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), Repeat(kFffd, 4));   // above U+10FFFF
  EXPECT_EQ(ValidUtf8("\xF5\xFF"), kFffd + kFffd);
  EXPECT_EQ(ValidUtf8("x\xE2\x82"), "x" + kFffd);  // cut short at the end
  EXPECT_EQ(ValidUtf8("\xE2\x82x"), kFffd + "x");  // the 'x' survives
}

TEST(TextTest, TerminalSafeRemovesEscapeSequencesWhole) {
  auto safe = [](const std::string& s) { return TerminalSafe(s, LineBreaks::kKeep); };
  EXPECT_EQ(safe("\x1b[1;31mred\x1b[0m"), "red");
  EXPECT_EQ(safe("\x1b[2J\x1b[H\x1b[?25lclean"), "clean");  // clear, home, hide cursor
  EXPECT_EQ(safe("\x1b]0;pwned\x07title"), "title");        // OSC ended by BEL
  EXPECT_EQ(safe("\x1b]8;;https://e.example\x1b\\link\x1b]8;;\x1b\\"), "link");  // by ST
  EXPECT_EQ(safe("\x1bPq#0;2;0;0;0\x1b\\dcs"), "dcs");
  EXPECT_EQ(safe("\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\x"), "x");
  EXPECT_EQ(safe("\x1b"
                 "c\x1b(B\x1b#8\x1b"
                 "7\x1b"
                 "8ok"),
            "ok");  // reset, charset, DEC
  EXPECT_EQ(safe("\xC2\x9B"
                 "31mc1\xC2\x9D"
                 "0;t\xC2\x9C"),
            "c1");                                 // 8-bit CSI, OSC, ST
  EXPECT_EQ(safe("\x1b[31\xC3\xA9x"), "\u00e9x");  // a CSI cut off by text
  EXPECT_EQ(safe("\x1b\x1b[0mx"), "x");
  EXPECT_EQ(safe("a\x1b"), "a");  // dropped at the end
  // An unterminated control string ends at the line feed: the rest shows.
  EXPECT_EQ(safe("\x1b]0;hidden\nshown"), "\nshown");
  EXPECT_EQ(safe("\x1b]0;x\x18y"), "y");  // CAN aborts it
}

TEST(TextTest, TerminalSafeRemovesControlsAndBidi) {
  auto keep = [](const std::string& s) { return TerminalSafe(s, LineBreaks::kKeep); };
  auto flat = [](const std::string& s) { return TerminalSafe(s, LineBreaks::kToSpace); };
  EXPECT_EQ(keep("over\rwrite\b\x07\x7f\x01!"), "overwrite!");
  EXPECT_EQ(keep("a\xC2\x85"
                 "b\xC2\x80\xC2\x9A"
                 "c"),
            "abc");  // C1: NEL, PAD, SCI
  EXPECT_EQ(keep("\u202Eevil\u202C \u2066x\u2069 \u200Fy\u061C"), "evil x y");
  EXPECT_EQ(keep("l1\n\tl2\u2028l3"), "l1\n\tl2\nl3");
  EXPECT_EQ(flat("l1\n\tl2\u2028l3\r\n"), "l1  l2 l3 ");
  EXPECT_EQ(keep("bad \xFF\xC3"), "bad " + kFffd + kFffd);
  EXPECT_EQ(keep("\u00e9\u4e2d\U0001F600 ok"), "\u00e9\u4e2d\U0001F600 ok");
}

// A program's output read in pieces: wherever the cuts fall, inside an escape
// sequence or a UTF-8 character, the filter gives what it gives the whole.
TEST(TextTest, TerminalFilterGivesTheSameTextHoweverTheInputIsCut) {
  const std::string input =
      "a\x1b[1;31mred\x1b[0m \xE2\x82\xAC \x1b]0;t\x1b\\\xF0\x9F\x98\x80\xC2\x9B"
      "2J\xFF"
      "\x1bP1$r\x07z\xE2\x82";
  for (LineBreaks breaks : {LineBreaks::kKeep, LineBreaks::kToSpace}) {
    const std::string whole = TerminalSafe(input, breaks);
    EXPECT_EQ(whole, "ared \u20ac \U0001F600" + kFffd + "z" + kFffd);
    for (size_t i = 0; i <= input.size(); ++i) {
      for (size_t j = i; j <= input.size(); ++j) {
        TerminalFilter filter(breaks);
        std::string out = filter.Feed(input.substr(0, i));
        out += filter.Feed(input.substr(i, j - i));
        out += filter.Feed(input.substr(j));
        out += filter.Finish();
        ASSERT_EQ(out, whole) << "cut at " << i << " and " << j;
      }
    }
    TerminalFilter bytewise(breaks);
    std::string out;
    for (char c : input) out += bytewise.Feed(std::string_view(&c, 1));
    EXPECT_EQ(out + bytewise.Finish(), whole);
  }
}

TEST(TextTest, TerminalFilterHoldsBackOnlyAnUnfinishedCharacter) {
  TerminalFilter filter(LineBreaks::kKeep);
  EXPECT_EQ(filter.Feed("ab\xE2\x82"), "ab");
  EXPECT_EQ(filter.Feed("\xAC"
                        "c"),
            "\u20ac"
            "c");
  EXPECT_EQ(filter.Feed("\x1b[3"), "");
  EXPECT_EQ(filter.Feed("1md"), "d");
  EXPECT_EQ(filter.Feed("\xF0\x9F"), "");
  EXPECT_EQ(filter.Finish(), kFffd);
  EXPECT_EQ(filter.Feed("again"), "again");  // it starts over after Finish
}

TEST(TextTest, LargeHostileInputPassesInOneLinearPass) {
  // Escape introducers and cut-off sequences by the megabyte: every byte is
  // looked at once, so this takes milliseconds; a filter that rescanned would
  // not finish within the test's time limit.
  const std::string unit = "\x1b[1;2;3\x1b]0;\x1b\\x\xC2\x9B\xE2\x82\x1b";
  const std::string input = Repeat(unit, 200000);
  TerminalFilter filter(LineBreaks::kKeep);
  std::string out;
  for (size_t at = 0; at < input.size(); at += 4093) out += filter.Feed(input.substr(at, 4093));
  out += filter.Finish();
  // Per unit: the CSI is cut by ESC, the OSC ends at ST, 'x' shows, the
  // C1 CSI swallows nothing, the cut-off euro sign is one U+FFFD.
  EXPECT_EQ(out, Repeat("x" + kFffd, 200000));
}

TEST(TextTest, JsonTextReplacesInvalidUtf8InsteadOfThrowing) {
  nlohmann::json j = {{"argv", {"prog", "bad\xFF\xFE"}}, {"ok", "caf\xC3\xA9"}};
  EXPECT_THROW(j.dump(), nlohmann::json::type_error);  // what a plain dump does
  const std::string text = JsonText(j);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  nlohmann::json back = nlohmann::json::parse(text);
  EXPECT_EQ(back["argv"][1], "bad" + kFffd + kFffd);
  EXPECT_EQ(back["ok"], "caf\u00e9");
  EXPECT_NE(text.find("\n  \"argv\": [\n"), std::string::npos) << text;  // two-space indent
}

TEST(TextTest, ParseJsonTextRefusesAKeyTwiceInOneObject) {
  nlohmann::json doc;
  std::string err;
  EXPECT_FALSE(ParseJsonText(R"({"w": [{"counts": [10], "x": 1, "counts": [1]}]})", &doc, &err));
  EXPECT_EQ(err, "duplicate key \"counts\": it appears twice in one object");
  // The same key in two objects, or nested under itself, is fine.
  EXPECT_TRUE(ParseJsonText(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": []})", &doc, &err))
      << err;
  EXPECT_EQ(doc["b"][1]["a"], 2);
  // A key as a hostile file writes it: on one line, without escapes, bounded.
  EXPECT_FALSE(ParseJsonText("{\"\\u001b[2J\\nk" + std::string(500, 'k') +
                                 "\": 1, \"\\u001b[2J\\nk" + std::string(500, 'k') + "\": 2}",
                             &doc, &err));
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  EXPECT_LT(err.size(), 200u) << err;
}

TEST(TextTest, TheOldFormOfAGithubCommandIsBrokenUp) {
  const std::string zwsp = "\u200b";
  EXPECT_EQ(TerminalSafe("x ##[add-mask]s #[a] ###[b]", LineBreaks::kKeep),
            "x ##" + zwsp + "[add-mask]s #[a] ###" + zwsp + "[b]");
  // Not joined again by what the filter removes, nor split by a chunk's end.
  EXPECT_EQ(TerminalSafe("##\x07\x1b[0m[error]", LineBreaks::kKeep), "##" + zwsp + "[error]");
  TerminalFilter filter(LineBreaks::kKeep);
  std::string out = filter.Feed("a#");
  out += filter.Feed("#");
  out += filter.Feed("[group]\n[x]");
  EXPECT_EQ(out + filter.Finish(), "a##" + zwsp + "[group]\n[x]");
}

TEST(TextTest, QuotedLinesPrefixEveryLineTheProgramWrote) {
  EXPECT_EQ(QuotedLines("::add-mask::x\n##[group]\r\nok\xe2\x80\xa8::error ::y\n"),
            "  | ::add-mask::x\n  | ##\u200b[group]\n  | ok\n  | ::error ::y");
  EXPECT_EQ(QuotedLines(""), "");
  // In pieces: only whole lines come out, each with its prefix, however cut.
  QuotedLineFilter filter;
  std::string out = filter.Feed("abc\nde");
  EXPECT_EQ(out, "  | abc\n");
  out += filter.Feed("f\n::g");
  out += filter.Finish();
  EXPECT_EQ(out, "  | abc\n  | def\n  | ::g\n");
  // A line without an end is handed on in bounded pieces, each prefixed.
  QuotedLineFilter long_line;
  const std::string piece = long_line.Feed(std::string(10000, 'x'));
  EXPECT_EQ(piece.substr(0, 4), "  | ");
  EXPECT_EQ(piece.find("\n  | "), 4 + QuotedLineFilter::kMaxHeldLine);
  EXPECT_LE(long_line.Finish().size(), 4 + QuotedLineFilter::kMaxHeldLine + 1);
}

}  // namespace
}  // namespace workgate

namespace workgate {
namespace {

// What bash makes of `line`: each word, as the program it runs receives it.
std::vector<std::string> BashWords(const std::string& line, const std::string& dir) {
  LaunchSpec spec;
  spec.cwd = dir;
  spec.argv = {"/bin/bash", "-c", "printf '%s\\0' " + line};
  spec.timeout_seconds = 30;
  LaunchResult r = Launch(spec);
  EXPECT_EQ(r.exit_code, 0) << line << ": " << r.err;
  std::vector<std::string> words;
  for (size_t from = 0; from < r.out.size();) {
    const size_t end = r.out.find('\0', from);
    words.push_back(r.out.substr(from, end - from));
    from = end + 1;
  }
  return words;
}

TEST(ShellWordTest, EveryWordReachesTheProgramAsItIsInOnePrintableLine) {
  const std::vector<std::string> hostile = {
      "plain/name-1.0",
      "",
      "a b",
      "it's",
      "$(touch pwned)",
      "`id`",
      "a\nb",
      "tab\there",
      "\x1b[31mred\x1b[0m",
      "caf\xc3\xa9",
      "\xe2\x80\xae" "evil",
      "\xff\xfe",
      "back\\slash'and\"quote",
      "{a,b}*?~!#;&|<>",
      "-x",
  };
  std::string line;
  for (const std::string& word : hostile) {
    const std::string quoted = ShellWord(word);
    for (unsigned char c : quoted) {
      EXPECT_TRUE(c >= 0x20 && c < 0x7f) << quoted << " holds byte " << int(c);
    }
    line += " " + quoted;
  }
  EXPECT_EQ(ShellWord("plain/name-1.0"), "plain/name-1.0");
  EXPECT_EQ(ShellWord("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellWord("a\nb"), "$'a\\x0ab'");
  TempDir dir;
  EXPECT_EQ(BashWords(line, dir.path()), hostile);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/pwned"));
}

TEST(ReplaceAllTest, ReplacesEachOccurrenceOnceLeftToRight) {
  EXPECT_EQ(ReplaceAll("{exe} --in={exe}.txt", "{exe}", "/b/prog"), "/b/prog --in=/b/prog.txt");
  // What a replacement puts in is not searched again.
  EXPECT_EQ(ReplaceAll("x{f}y{f}", "{f}", "{f}{f}"), "x{f}{f}y{f}{f}");
  EXPECT_EQ(ReplaceAll("no placeholder", "{f}", "z"), "no placeholder");
  EXPECT_EQ(ReplaceAll("ab", "", "z"), "ab");
}

}  // namespace
}  // namespace workgate
