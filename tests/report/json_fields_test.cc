#include "report/json_fields.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace workgate {
namespace {

using nlohmann::json;

TEST(JsonFieldsTest, ReadsEachFieldOfItsTypeAndRange) {
  const json j = json::parse(R"({"s": "x", "n": null, "b": true, "i": 7, "u": 18446744073709551615,
                                 "d": 0.5, "l": ["a", "b"], "o": {}})");
  std::string err;
  JsonFields f(j, "top", &err);
  std::string s;
  std::optional<std::string> n;
  bool b = false;
  int i = 0;
  uint64_t u = 0;
  double d = 0;
  std::vector<std::string> l;
  ASSERT_TRUE(f.String("s", &s) && f.StringOrNull("n", &n) && f.Bool("b", &b) &&
              f.Int("i", 1, 7, &i) && f.Uint("u", &u) && f.Number("d", &d) &&
              f.Strings("l", 2, &l) && f.Object("o", false) != nullptr && f.Done())
      << err;
  EXPECT_EQ(s, "x");
  EXPECT_FALSE(n);
  EXPECT_TRUE(b);
  EXPECT_EQ(i, 7);
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_EQ(d, 0.5);
  EXPECT_EQ(l, (std::vector<std::string>{"a", "b"}));
}

// The problem `read` records, reading field "v" of {"v": value}.
std::string Problem(const std::string& value, const std::function<bool(JsonFields*)>& read) {
  const json j = json::parse(R"({"v": )" + value + "}");
  std::string err;
  JsonFields f(j, "w[1]", &err);
  EXPECT_FALSE(read(&f)) << value;
  EXPECT_FALSE(f.ok());
  return err;
}

TEST(JsonFieldsTest, NamesTheFieldAndWhatIsWrong) {
  int i = 0;
  auto in_range = [&i](JsonFields* f) { return f->Int("v", 1, 1000, &i); };
  // nlohmann reads every non-negative integer as unsigned: 0 is below 1 all the same.
  EXPECT_EQ(Problem("0", in_range), "w[1].v must be an integer in [1, 1000]");
  EXPECT_EQ(Problem("1001", in_range), "w[1].v must be an integer in [1, 1000]");
  EXPECT_EQ(Problem("-3", in_range), "w[1].v must be an integer in [1, 1000]");
  EXPECT_EQ(Problem("18446744073709551615", in_range), "w[1].v must be an integer in [1, 1000]");
  EXPECT_EQ(Problem("2.5", in_range), "w[1].v must be an integer in [1, 1000]");
  std::string s;
  EXPECT_EQ(Problem("1", [&s](JsonFields* f) { return f->String("v", &s); }),
            "w[1].v must be a string");
  EXPECT_EQ(Problem("1", [&s](JsonFields* f) { return f->String("missing", &s); }),
            "w[1].missing is missing");
  std::vector<std::string> l;
  EXPECT_EQ(Problem(R"(["a", "b", "c"])", [&l](JsonFields* f) { return f->Strings("v", 2, &l); }),
            "w[1].v has 3 items, more than the 2 workgate writes");
  EXPECT_EQ(Problem(R"(["a", 1])", [&l](JsonFields* f) { return f->Strings("v", 9, &l); }),
            "w[1].v must be a list of strings");
  uint64_t u = 0;
  EXPECT_EQ(Problem("-1", [&u](JsonFields* f) { return f->Uint("v", &u); }),
            "w[1].v must be a non-negative integer");
  // A field that was not read is one the writer never writes.
  EXPECT_EQ(Problem("1", [](JsonFields* f) { return f->Done(); }),
            "w[1].v is not a field workgate writes");
}

TEST(JsonFieldsTest, KeepsTheFirstProblemAndThenDoesNothing) {
  const json j = json::parse(R"({"a": 1, "b": "x"})");
  std::string err;
  JsonFields f(j, "", &err);
  std::string s = "unchanged";
  EXPECT_FALSE(f.String("a", &s));
  EXPECT_FALSE(f.String("b", &s));
  EXPECT_EQ(s, "unchanged");
  EXPECT_EQ(err, "a must be a string");
  std::string other;
  JsonFields list(json::array(), "", &other);
  EXPECT_FALSE(list.ok());
  EXPECT_EQ(other, "the document must be an object");
}

}  // namespace
}  // namespace workgate
