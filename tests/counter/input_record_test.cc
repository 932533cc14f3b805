// The record lines of what a counted program read (counter/input_record.h):
// what vgcount writes, and the strict reading of it.
#include "counter/input_record.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "counter/valgrind_counter.h"

namespace workgate {
namespace {

InputRecord Present(InputRecord::Kind kind, std::string path) {
  InputRecord r;
  r.kind = kind;
  r.state = InputRecord::State::kPresent;
  r.dev = 2049;
  r.ino = 1234567;
  r.mode = 0100644;
  r.size = 4096;
  r.mtime_ns = 1700000000123456789;
  r.ctime_ns = 1700000001000000000;
  r.path = std::move(path);
  return r;
}

InputRecord Parsed(const std::string& text) {
  InputRecord r;
  std::string why;
  EXPECT_TRUE(ParseInputRecord(text, &r, &why)) << text << ": " << why;
  return r;
}

TEST(InputRecordTest, EveryKindAndStateGoesRoundTrip) {
  const std::vector<std::pair<InputRecord::Kind, std::string>> kinds = {
      {InputRecord::Kind::kOpen, "open"},      {InputRecord::Kind::kExec, "exec"},
      {InputRecord::Kind::kList, "list"},      {InputRecord::Kind::kMeta, "meta"},
      {InputRecord::Kind::kLinkMeta, "lmeta"}, {InputRecord::Kind::kMachine, "machine"}};
  for (const auto& [kind, word] : kinds) {
    EXPECT_EQ(InputKindName(kind), word);
    InputRecord present = Present(kind, "/usr/lib/python3/os.py");
    EXPECT_EQ(FormatInputRecord(present),
              word +
                  " 2049:1234567:33188:4096:1700000000123456789:1700000001000000000 "
                  "/usr/lib/python3/os.py");
    EXPECT_EQ(Parsed(FormatInputRecord(present)), present);

    InputRecord missing;
    missing.kind = kind;
    missing.state = InputRecord::State::kMissing;
    missing.path = "/etc/nothing";
    EXPECT_EQ(FormatInputRecord(missing), word + " missing /etc/nothing");
    EXPECT_EQ(Parsed(FormatInputRecord(missing)), missing);

    InputRecord error;
    error.kind = kind;
    error.state = InputRecord::State::kError;
    error.error = 13;
    error.path = "/root/secret";
    EXPECT_EQ(FormatInputRecord(error), word + " error:13 /root/secret");
    EXPECT_EQ(Parsed(FormatInputRecord(error)), error);
  }
}

TEST(InputRecordTest, TheExtremesOfEveryNumberGoRoundTrip) {
  InputRecord r = Present(InputRecord::Kind::kOpen, "/");
  r.dev = r.ino = r.size = std::numeric_limits<uint64_t>::max();
  r.mode = std::numeric_limits<uint32_t>::max();
  r.mtime_ns = std::numeric_limits<int64_t>::min();
  r.ctime_ns = std::numeric_limits<int64_t>::max();
  const std::string line = FormatInputRecord(r);
  EXPECT_EQ(line,
            "open 18446744073709551615:18446744073709551615:4294967295:18446744073709551615:"
            "-9223372036854775808:9223372036854775807 /");
  EXPECT_EQ(Parsed(line), r);
  InputRecord zero = Present(InputRecord::Kind::kMeta, "/a");
  zero.dev = zero.ino = zero.size = 0;
  zero.mode = 0;
  zero.mtime_ns = zero.ctime_ns = 0;
  EXPECT_EQ(FormatInputRecord(zero), "meta 0:0:0:0:0:0 /a");
  EXPECT_EQ(Parsed("meta 0:0:0:0:0:0 /a"), zero);
  // Before 1970.
  EXPECT_EQ(Parsed("meta 1:2:3:4:-5:-6 /a").mtime_ns, -5);
}

TEST(InputRecordTest, PathsAreEscapedByteForByte) {
  InputRecord r = Present(InputRecord::Kind::kOpen, "");
  r.path = std::string("/a b\nc%d\te\x7f\x80\xff/\x01~!", 17);
  const std::string line = FormatInputRecord(r);
  EXPECT_EQ(line.substr(line.rfind(' ') + 1), "/a%20b%0Ac%25d%09e%7F%80%FF/%01~!");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(Parsed(line), r);
  // UTF-8 names are bytes like any other.
  r.path = "/home/ren\xc3\xa9/caf\xc3\xa9.txt";
  EXPECT_EQ(FormatInputRecord(r).substr(FormatInputRecord(r).rfind(' ') + 1),
            "/home/ren%C3%A9/caf%C3%A9.txt");
  EXPECT_EQ(Parsed(FormatInputRecord(r)), r);
}

TEST(InputRecordTest, RefusesEveryMalformedField) {
  const std::string ok_state = "1:2:33188:4:5:6";
  const std::vector<std::string> bad = {
      // The shape.
      "",
      "open",
      "open missing",
      "open missing ",
      "open  missing /a",
      "open missing /a b",
      "open missing /a\n",
      "overflow",
      // The kind.
      "Open missing /a",
      "read missing /a",
      "opens missing /a",
      " missing /a",
      // The state.
      "open Missing /a",
      "open missing: /a",
      "open error: /a",
      "open error:0 /a",
      "open error:-2 /a",
      "open error:+2 /a",
      "open error:02 /a",
      "open error:0x2 /a",
      "open error:2147483648 /a",
      "open error:13x /a",
      "open 1:2:3:4:5 /a",
      "open 1:2:3:4:5:6:7 /a",
      "open 1:2:3:4:5:6: /a",
      "open :1:2:3:4:5 /a",
      "open 1::3:4:5:6 /a",
      "open -1:2:3:4:5:6 /a",
      "open 1:-2:3:4:5:6 /a",
      "open 1:2:-3:4:5:6 /a",
      "open 1:2:3:-4:5:6 /a",
      "open 1:2:4294967296:4:5:6 /a",
      "open 18446744073709551616:2:3:4:5:6 /a",
      "open 1:2:3:4:9223372036854775808:6 /a",
      "open 1:2:3:4:5:-9223372036854775809 /a",
      "open 1:2:3:4:-0:6 /a",
      "open 1:2:3:4:--5:6 /a",
      "open 01:2:3:4:5:6 /a",
      "open 1:2:3:4:5:06 /a",
      "open 1:2:3:4:5:6.0 /a",
      "open 1:2:3:4:5:0x6 /a",
      "open \xd9\xa1:2:3:4:5:6 /a",  // an Arabic-Indic one: decimal only
      // The path.
      "open " + ok_state + " a",
      "open " + ok_state + " ./a",
      "open " + ok_state + " %2Fa",
      "open " + ok_state + " /a%",
      "open " + ok_state + " /a%2",
      "open " + ok_state + " /a%2g",
      "open " + ok_state + " /a%2a",
      "open " + ok_state + " /a%zz",
      "open " + ok_state + " /a%00",
      "open " + ok_state + " /a%41",
      "open " + ok_state + " /a%2F",
      "open " + ok_state + " /a\tb",
      "open " + ok_state + " /a\x7f",
      "open " + ok_state + " /caf\xc3\xa9",
      "open " + ok_state + " /a\r",
  };
  for (const std::string& line : bad) {
    InputRecord r;
    std::string why;
    EXPECT_FALSE(ParseInputRecord(line, &r, &why)) << "'" << line << "'";
    EXPECT_FALSE(why.empty()) << "'" << line << "'";
  }
  // What the tool writes of the same paths is read.
  InputRecord r;
  std::string why;
  EXPECT_TRUE(ParseInputRecord("open " + ok_state + " /a%25%20b", &r, &why)) << why;
  EXPECT_EQ(r.path, "/a% b");
}

TEST(InputRecordTest, TheOrderIsByPathThenKindThenState) {
  InputRecord a = Present(InputRecord::Kind::kMeta, "/a");
  InputRecord b = Present(InputRecord::Kind::kOpen, "/b");
  InputRecord a_open = Present(InputRecord::Kind::kOpen, "/a");
  InputRecord a_open_older = a_open;
  a_open_older.mtime_ns -= 1;
  EXPECT_TRUE(InputRecordBefore(a, b));
  EXPECT_FALSE(InputRecordBefore(b, a));
  EXPECT_TRUE(InputRecordBefore(a_open, a));  // open before meta
  EXPECT_TRUE(InputRecordBefore(a_open_older, a_open));
  EXPECT_FALSE(InputRecordBefore(a_open, a_open));
}

TEST(ParseVgcountInputRecordsTest, ReadsTheInputLinesOfAReport) {
  const std::string report =
      "version: 2\npid: 7\nppid: 6\ncmd: /bin/cat /etc/hosts\ninstructions: 100\nthreads: 1\n"
      "pinned:\nunpinned:\n"
      "input: open 1:2:33188:4:5:6 /etc/hosts\n"
      "input: meta missing /etc/ld.so.preload\n"
      "input: exec error:13 /usr/bin/secret%20tool\n";
  std::vector<InputRecord> records;
  std::string why;
  ASSERT_TRUE(ParseVgcountInputRecords(report, &records, &why)) << why;
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].path, "/etc/hosts");
  EXPECT_EQ(records[0].size, 4u);
  EXPECT_EQ(records[1].state, InputRecord::State::kMissing);
  EXPECT_EQ(records[2].error, 13);
  EXPECT_EQ(records[2].path, "/usr/bin/secret tool");
  // A report without input lines has none, and is whole.
  records.clear();
  EXPECT_TRUE(ParseVgcountInputRecords("instructions: 3\n", &records, &why));
  EXPECT_TRUE(records.empty());
}

TEST(ParseVgcountInputRecordsTest, AnOverflowOrAMalformedLineLeavesTheRecordsIncomplete) {
  std::vector<InputRecord> records;
  std::string why;
  EXPECT_FALSE(
      ParseVgcountInputRecords("input: open missing /a\ninput: overflow\n", &records, &why));
  EXPECT_EQ(records.size(), 1u);
  EXPECT_TRUE(why.empty()) << why;  // the tool said so itself
  records.clear();
  EXPECT_FALSE(ParseVgcountInputRecords(
      "input: open missing /a\ninput: open missing relative\ninput: meta missing /b\n", &records,
      &why));
  EXPECT_EQ(records.size(), 2u);  // the good ones stay
  EXPECT_NE(why.find("relative"), std::string::npos) << why;
}

}  // namespace
}  // namespace workgate
