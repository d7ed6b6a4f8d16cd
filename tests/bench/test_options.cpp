// cured-bench's command line: every size form, lists, ranges, options, the seeds' positional
// form, defaults, canonical order, errors and the --help text. CLI11 reads the options: these
// test what cured-bench asks of it (a repeated option keeps its last value, a flag takes no
// value, every bad argument is a one-line parse_error), not its parsing in general.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "bench/options.hpp"

namespace cb = cured::bench;

namespace {

using strings = std::vector<std::string>;
using sizes = std::vector<std::int64_t>;

constexpr std::int64_t two_to(int e) { return std::int64_t(1) << e; }

cb::options parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"cured-bench"};
  argv.insert(argv.end(), args.begin(), args.end());
  return cb::parse_options(int(argv.size()), argv.data());
}

/// The parse_error message of parsing `args`, or "" when parsing succeeded.
std::string error_of(std::initializer_list<const char*> args) {
  try {
    parse(args);
  } catch (const cb::parse_error& e) {
    return e.what();
  }
  return "";
}

std::string size_error(const std::string& text) {
  try {
    cb::parse_size(text);
  } catch (const cb::parse_error& e) {
    return e.what();
  }
  return "";
}

/// The error is one line, names `bad` and, when given, contains `part`.
void expect_error(const std::string& message, const std::string& bad, const std::string& part = "") {
  ASSERT_FALSE(message.empty()) << "no error for '" << bad << "'";
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find(bad), std::string::npos) << message << " (should name '" << bad << "')";
  if (!part.empty()) {
    EXPECT_NE(message.find(part), std::string::npos) << message;
  }
}

const strings all_impls = {"step1", "step2", "step3", "step4", "step5", "step6", "step7", "step8",
                           "step9", "step10", "cured", "cured-blocking", "cub", "cublas", "thrust", "floor", "cpu", "cpu-mt"};

}  // namespace

// ---- parse_size -------------------------------------------------------------------------

TEST(ParseSize, PlainNumbers) {
  EXPECT_EQ(cb::parse_size("0"), 0);
  EXPECT_EQ(cb::parse_size("1"), 1);
  EXPECT_EQ(cb::parse_size("1048576"), 1048576);
  EXPECT_EQ(cb::parse_size("007"), 7);
  EXPECT_EQ(cb::parse_size("4611686018427387904"), two_to(62));
}

TEST(ParseSize, Powers) {
  EXPECT_EQ(cb::parse_size("2^20"), two_to(20));
  EXPECT_EQ(cb::parse_size("2^0"), 1);
  EXPECT_EQ(cb::parse_size("10^6"), 1000000);
  EXPECT_EQ(cb::parse_size("0^5"), 0);
  EXPECT_EQ(cb::parse_size("1^999999999"), 1);
  EXPECT_EQ(cb::parse_size("2^62"), two_to(62));
  EXPECT_EQ(cb::parse_size("4^31"), two_to(62));
}

TEST(ParseSize, Scientific) {
  EXPECT_EQ(cb::parse_size("1e6"), 1000000);
  EXPECT_EQ(cb::parse_size("1E6"), 1000000);
  EXPECT_EQ(cb::parse_size("1e+6"), 1000000);
  EXPECT_EQ(cb::parse_size("1e0"), 1);
  EXPECT_EQ(cb::parse_size("1.5e6"), 1500000);
  EXPECT_EQ(cb::parse_size("2.25e2"), 225);
  EXPECT_EQ(cb::parse_size("0e99"), 0);
  EXPECT_EQ(cb::parse_size("4e18"), 4000000000000000000);
}

TEST(ParseSize, Suffixes) {
  EXPECT_EQ(cb::parse_size("1k"), 1000);
  EXPECT_EQ(cb::parse_size("1K"), 1000);
  EXPECT_EQ(cb::parse_size("16M"), 16000000);
  EXPECT_EQ(cb::parse_size("2G"), 2000000000);
  EXPECT_EQ(cb::parse_size("1T"), 1000000000000);
  EXPECT_EQ(cb::parse_size("1Ki"), 1024);
  EXPECT_EQ(cb::parse_size("1Mi"), two_to(20));
  EXPECT_EQ(cb::parse_size("4Gi"), two_to(32));
  EXPECT_EQ(cb::parse_size("1Ti"), two_to(40));
  EXPECT_EQ(cb::parse_size("1.5Ki"), 1536);
  EXPECT_EQ(cb::parse_size("2.5M"), 2500000);
}

TEST(ParseSize, Products) {
  EXPECT_EQ(cb::parse_size("4000x4000"), 16000000);
  EXPECT_EQ(cb::parse_size("11000x11000"), 121000000);
  EXPECT_EQ(cb::parse_size("2^10x2^10"), two_to(20));
  EXPECT_EQ(cb::parse_size("2x3x7"), 42);
  EXPECT_EQ(cb::parse_size("1Kix1e3"), 1024000);
  EXPECT_EQ(cb::parse_size("0x4000"), 0);
  EXPECT_EQ(cb::parse_size("2^31x2^31"), two_to(62));
}

TEST(ParseSize, Junk) {
  for (const char* bad : {"", "2^", "^2", "2^^3", "1e", "e6", "1e-3", "1e6.5", "4000x", "x4000", "4000xx4000",
                          "12q", "q12", "1.", ".5", "1..2", "M", "1Mq", "1m", "1Mi2", " 5", "5 ", "+5", "1,000",
                          "0x10x", "2^-1", "abc", "1_000"})
    expect_error(size_error(bad), std::string("'") + bad + "'", "cannot parse size");
}

TEST(ParseSize, Negative) {
  expect_error(size_error("-5"), "'-5'", "negative");
  expect_error(size_error("-2^10"), "'-2^10'", "negative");
  expect_error(size_error("-"), "'-'", "cannot parse");
  expect_error(size_error("--5"), "'--5'", "cannot parse");
  expect_error(size_error("-x"), "'-x'", "cannot parse");
}

TEST(ParseSize, NotWhole) {
  expect_error(size_error("1.5e0"), "'1.5e0'", "whole");
  expect_error(size_error("0.5"), "'0.5'", "whole");
  expect_error(size_error("1.0001k"), "'1.0001k'", "whole");
}

TEST(ParseSize, Overflow) {
  for (const char* big : {"2^63", "2^62x2", "4611686018427387905", "9223372036854775807", "9223372036854775808",
                          "18446744073709551616", "2^1000", "2^99999999999999999999", "10^19", "5e18", "1e30",
                          "99999999999999999999999999999999999999999999", "2^31x2^31x2",
                          "4000000x4000000x4000000", "1e999999", "8388608Ti"})
    expect_error(size_error(big), std::string("'") + big + "'", "larger than 2^62");
}

// ---- size lists and ranges --------------------------------------------------------------

TEST(ParseSizes, ListsAreSortedAndUnique) {
  EXPECT_EQ(cb::parse_sizes("1M,2^20,1M"), (sizes{1000000, two_to(20)}));
  EXPECT_EQ(cb::parse_sizes("3,1,2,3,1"), (sizes{1, 2, 3}));
  EXPECT_EQ(cb::parse_sizes("0"), (sizes{0}));
  EXPECT_EQ(cb::parse_sizes("4000x4000,1e3"), (sizes{1000, 16000000}));
}

TEST(ParseSizes, Ranges) {
  EXPECT_EQ(cb::parse_sizes("2^10..2^12"), (sizes{1024, 2048, 4096}));
  EXPECT_EQ(cb::parse_sizes("1000..5000"), (sizes{1024, 2048, 4096}));
  EXPECT_EQ(cb::parse_sizes("0..4"), (sizes{1, 2, 4}));
  EXPECT_EQ(cb::parse_sizes("2^20..2^20"), (sizes{two_to(20)}));
  EXPECT_EQ(cb::parse_sizes("2^61..2^62"), (sizes{two_to(61), two_to(62)}));
  EXPECT_EQ(cb::parse_sizes("1Ki..4Ki,3000,2^11"), (sizes{1024, 2048, 3000, 4096}));
  EXPECT_EQ(cb::parse_sizes("1.5e3..4e3"), (sizes{2048}));
  EXPECT_EQ(cb::parse_sizes("2^10..2^30").size(), 21u);
}

TEST(ParseSizes, BadListsAndRanges) {
  auto error = [](const char* list) {
    try {
      cb::parse_sizes(list);
    } catch (const cb::parse_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  expect_error(error("1,,2"), "'1,,2'", "empty item");
  expect_error(error(",1"), "',1'", "empty item");
  expect_error(error("1,"), "'1,'", "empty item");
  expect_error(error(""), "''", "empty item");
  expect_error(error("1,12q"), "'12q'", "cannot parse size");
  expect_error(error("2^12..2^10"), "'2^12..2^10'", "backwards");
  expect_error(error("5..7"), "'5..7'", "no power of two");
  expect_error(error("2^10.."), "''", "cannot parse size");
  expect_error(error("..2^10"), "''", "cannot parse size");
  expect_error(error("1...4"), "'.4'", "cannot parse size");
  expect_error(error("1..2^63"), "'2^63'", "larger than 2^62");
  expect_error(error("-4..8"), "'-4'", "negative");
}

// ---- steps ------------------------------------------------------------------------------

TEST(ParseSteps, ListsAndRanges) {
  EXPECT_EQ(cb::parse_steps("1,3,5-7"), (std::vector<int>{1, 3, 5, 6, 7}));
  EXPECT_EQ(cb::parse_steps("10,1"), (std::vector<int>{1, 10}));
  EXPECT_EQ(cb::parse_steps("3,3,1-3"), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(cb::parse_steps("1-10").size(), 10u);
  EXPECT_EQ(cb::parse_steps("4-4"), (std::vector<int>{4}));
}

TEST(ParseSteps, Errors) {
  auto error = [](const char* list) {
    try {
      cb::parse_steps(list);
    } catch (const cb::parse_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  expect_error(error("0"), "'0'", "steps are 1 to 10");
  expect_error(error("11"), "'11'", "steps are 1 to 10");
  expect_error(error("step3"), "'step3'");
  expect_error(error("1-"), "''");
  expect_error(error("-3"), "''");
  expect_error(error("7-5"), "'7-5'", "backwards");
  expect_error(error("1-11"), "'11'");
  expect_error(error("1,,2"), "'1,,2'", "empty item");
  expect_error(error("1-2-3"), "'2-3'");
}

// ---- defaults ---------------------------------------------------------------------------

TEST(DefaultSizes, AreTheDocumentedSet) {
  EXPECT_EQ(cb::default_sizes(), (sizes{16384, 1000000, 16000000, 121000000}));
  const sizes d = cb::sweep_sizes();
  sizes want = {1000000, 4000000, 16000000, 36000000, 121000000};
  for (int e = 10; e <= 30; ++e) want.push_back(two_to(e));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(d, want);
  EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
  EXPECT_EQ(std::adjacent_find(d.begin(), d.end()), d.end());
}

TEST(Options, SweepIsTheFullSetOfSizes) {
  EXPECT_EQ(parse({"--sweep"}).sizes, cb::sweep_sizes());
  EXPECT_TRUE(parse({"--sweep"}).sweep);
  expect_error(error_of({"--sweep", "--sizes", "2^20"}), "--sweep", "without --sizes");
  expect_error(error_of({"--sweep", "1000"}), "'1000'", "--sweep");
  expect_error(error_of({"--sweep", "--axes-grid"}), "--sweep", "does not apply");
  expect_error(error_of({"--sweep", "--segments", "powerlaw"}), "--sweep", "does not apply");
}

TEST(Options, ReportFilesOfEachFormat) {
  const cb::options o = parse({"--json", "a.json", "--csv=b.csv", "--md", "c.md", "--json", "d.json"});
  ASSERT_EQ(o.reports.size(), 3u);  // one per format, the last given
  EXPECT_EQ(o.reports[0].fmt, cb::options::format::csv);
  EXPECT_EQ(o.reports[0].path, "b.csv");
  EXPECT_EQ(o.reports[1].fmt, cb::options::format::md);
  EXPECT_EQ(o.reports[1].path, "c.md");
  EXPECT_EQ(o.reports[2].fmt, cb::options::format::json);
  EXPECT_EQ(o.reports[2].path, "d.json");
  EXPECT_EQ(o.fmt, cb::options::format::table);  // stdout keeps its table
  EXPECT_TRUE(parse({}).reports.empty());
  expect_error(error_of({"--out", "r.json", "--json", "r.json"}), "'r.json'", "given twice");
  expect_error(error_of({"--csv", "r", "--md", "r", "--axes-grid"}), "'r'", "given twice");
}

TEST(Options, Version) {
  EXPECT_TRUE(parse({"--version"}).version);
  EXPECT_FALSE(parse({}).version);
}

TEST(Options, Defaults) {
  const cb::options o = parse({});
  EXPECT_EQ(o.impls, all_impls);
  EXPECT_EQ(o.steps, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(o.block, 256);
  EXPECT_EQ(o.sizes, cb::default_sizes());
  EXPECT_EQ(o.types, (strings{"float", "int32"}));
  EXPECT_EQ(o.ops, (strings{"sum"}));
  EXPECT_EQ(o.data, cb::data_family::exact);
  EXPECT_TRUE(o.cold);
  EXPECT_TRUE(o.hot);
  EXPECT_EQ(o.samples, 0);
  EXPECT_EQ(o.device, 0);
  EXPECT_EQ(o.fmt, cb::options::format::table);
  EXPECT_EQ(o.out, "");
  EXPECT_FALSE(o.list);
  EXPECT_FALSE(o.help);
  EXPECT_FALSE(o.seed_positional);
  EXPECT_FALSE(o.seed_given);
}

TEST(Options, CanonicalNameLists) {
  strings names = all_impls;
  names.insert(names.begin() + 12, "cured-pairs");  // (segmented workloads only: not in the whole-array "all")
  EXPECT_EQ(strings(cb::implementation_names().begin(), cb::implementation_names().end()), names);
  EXPECT_EQ(cb::type_names().size(), 6u);
  EXPECT_EQ(strings(cb::op_names().begin(), cb::op_names().end()),
            (strings{"sum", "exact_sum", "min", "max", "argmin", "argmax", "exact_dot", "dot", "mean", "var_mean", "aminmax",
                     "vector_norm", "logsumexp", "count_nonzero", "any"}));
  EXPECT_EQ(strings(cb::data_names().begin(), cb::data_names().end()),
            (strings{"exact", "normal", "spread", "cancel", "boundary", "subnormal"}));
  for (auto f : {cb::data_family::exact, cb::data_family::normal, cb::data_family::spread, cb::data_family::cancel,
                 cb::data_family::boundary, cb::data_family::subnormal})
    EXPECT_EQ(cb::data_name(f), cb::data_names()[std::size_t(f)]);
}

// ---- --impl and --steps -----------------------------------------------------------------

TEST(Options, ImplListsAreCanonicalAndUnique) {
  EXPECT_EQ(parse({"--impl", "thrust,cub,thrust"}).impls, (strings{"cub", "thrust"}));
  EXPECT_EQ(parse({"--impl", "cpu-mt,cpu,cured"}).impls, (strings{"cured", "cpu", "cpu-mt"}));
  EXPECT_EQ(parse({"--impl", "step10,step2"}).impls, (strings{"step2", "step10"}));
  EXPECT_EQ(parse({"--impl", "step10,step2"}).steps, (std::vector<int>{2, 10}));
  EXPECT_EQ(parse({"--impl", "cub"}).steps, std::vector<int>{});
  EXPECT_EQ(parse({"--impl", "all"}).impls, all_impls);
  EXPECT_EQ(parse({"--impl", "cub,all,cub"}).impls, all_impls);
  const cb::options ladder = parse({"--impl", "ladder"});
  EXPECT_EQ(ladder.impls, strings(all_impls.begin(), all_impls.begin() + 10));
  EXPECT_EQ(ladder.steps.size(), 10u);
  EXPECT_EQ(parse({"--impl", "ladder,cub,step3"}).impls.size(), 11u);
}

TEST(Options, ImplErrors) {
  expect_error(error_of({"--impl", "foo"}), "'foo'", "unknown implementation 'foo' (see --list)");
  expect_error(error_of({"--impl", "cub,foo"}), "'foo'", "unknown implementation");
  expect_error(error_of({"--impl", "3"}), "'3'", "unknown implementation");
  expect_error(error_of({"--impl", "step11"}), "'step11'", "unknown implementation");
  expect_error(error_of({"--impl", "Step1"}), "'Step1'", "unknown implementation");
  expect_error(error_of({"--impl", "cub,,thrust"}), "'cub,,thrust'", "empty item");
}

TEST(Options, StepsSelectLadderImpls) {
  const cb::options o = parse({"--steps", "1,3"});
  EXPECT_EQ(o.impls,
            (strings{"step1", "step3", "cured", "cured-blocking", "cub", "cublas", "thrust", "floor", "cpu", "cpu-mt"}));
  EXPECT_EQ(o.steps, (std::vector<int>{1, 3}));
  EXPECT_EQ(parse({"--impl", "cub", "--steps", "2"}).impls, (strings{"step2", "cub"}));
  EXPECT_EQ(parse({"--steps", "2", "--impl", "cub"}).impls, (strings{"step2", "cub"}));
  EXPECT_EQ(parse({"--impl", "ladder", "--steps", "4-5"}).impls, (strings{"step4", "step5"}));
  EXPECT_EQ(parse({"--impl", "step9", "--steps", "1"}).impls, (strings{"step1", "step9"}));
  EXPECT_EQ(parse({"--impl", "step9", "--steps", "1"}).steps, (std::vector<int>{1, 9}));
  EXPECT_EQ(parse({"--steps", "5-7,1"}).steps, (std::vector<int>{1, 5, 6, 7}));
  expect_error(error_of({"--steps", "0"}), "'0'", "steps are 1 to 10");
  expect_error(error_of({"--steps", "1,12"}), "'12'");
}

// ---- the other options ------------------------------------------------------------------

TEST(Options, Block) {
  for (int b : {32, 64, 128, 256, 512, 1024})
    EXPECT_EQ(parse({"--block", std::to_string(b).c_str()}).block, b);
  expect_error(error_of({"--block", "100"}), "--block: 100", "is not a power of two from 32 to 1024");
  for (const char* bad : {"16", "2048", "0", "1", "96", "4294967328", "99999999999999999999"})
    expect_error(error_of({"--block", bad}), std::string("--block: ") + bad, "is not a power of two from 32 to 1024");
  EXPECT_EQ(parse({"--block", "0064"}).block, 64);  // decimal, never octal
  for (const char* bad : {"abc", "256k", "2^8", "+256", "-32", "0x100", "256.0"})
    expect_error(error_of({"--block", bad}), std::string("'") + bad + "'", "is not a whole number");
}

TEST(Options, Sizes) {
  EXPECT_EQ(parse({"--sizes", "1M,2^10..2^11"}).sizes, (sizes{1024, 2048, 1000000}));
  EXPECT_EQ(parse({"--sizes", "4000x4000"}).sizes, (sizes{16000000}));
  EXPECT_EQ(parse({"--sizes", "0"}).sizes, (sizes{0}));
  expect_error(error_of({"--sizes", "12q"}), "'12q'", "cannot parse size '12q'");
  expect_error(error_of({"--sizes", "-5"}), "'-5'", "negative");
  expect_error(error_of({"--sizes", "1,,2"}), "'1,,2'");
}

TEST(Options, TypesAndOps) {
  EXPECT_EQ(parse({"--types", "double,float,double"}).types, (strings{"float", "double"}));
  EXPECT_EQ(parse({"--types", "half,uint32,float"}).types, (strings{"float", "uint32", "half"}));
  EXPECT_EQ(parse({"--types", "all"}).types.size(), 6u);
  EXPECT_EQ(parse({"--ops", "argmax,sum,min"}).ops, (strings{"sum", "min", "argmax"}));
  EXPECT_EQ(parse({"--ops", "all"}).ops,
            (strings{"sum", "exact_sum", "min", "max", "argmin", "argmax", "exact_dot", "dot", "mean", "var_mean", "aminmax",
                     "vector_norm", "logsumexp", "count_nonzero", "any"}));
  EXPECT_EQ(parse({"--ops", "exact_sum"}).ops, (strings{"exact_sum"}));
  EXPECT_EQ(parse({"--ops", "exact_sum,sum,exact_sum"}).ops, (strings{"sum", "exact_sum"}));  // canonical, unique
  EXPECT_EQ(parse({"--ops", "max,exact_sum"}).ops, (strings{"exact_sum", "max"}));
  expect_error(error_of({"--ops", "exact"}), "'exact'", "unknown op");
  expect_error(error_of({"--ops", "exact-sum"}), "'exact-sum'", "unknown op");
  expect_error(error_of({"--ops", "Exact_sum"}), "'Exact_sum'", "unknown op");
  expect_error(error_of({"--types", "float,f32"}), "'f32'", "unknown type");
  expect_error(error_of({"--types", "Float"}), "'Float'", "unknown type");
  expect_error(error_of({"--ops", "prod"}), "'prod'", "unknown op");
  expect_error(error_of({"--ops", "sum,"}), "'sum,'", "empty item");
}

TEST(Options, DataFamily) {
  EXPECT_EQ(parse({"--data", "exact"}).data, cb::data_family::exact);
  EXPECT_EQ(parse({"--data", "normal"}).data, cb::data_family::normal);
  EXPECT_EQ(parse({"--data=spread"}).data, cb::data_family::spread);
  EXPECT_EQ(parse({"--data", "cancel"}).data, cb::data_family::cancel);
  EXPECT_EQ(parse({"--data", "boundary"}).data, cb::data_family::boundary);
  EXPECT_EQ(parse({"--data", "subnormal", "--types", "half"}).data, cb::data_family::subnormal);
  EXPECT_EQ(parse({"--data", "normal", "--data", "exact"}).data, cb::data_family::exact);  // the last one wins
  // The exact family keeps the default types; normal and spread default to the floating pair.
  EXPECT_EQ(parse({"--data", "exact"}).types, (strings{"float", "int32"}));
  EXPECT_EQ(parse({"--data", "normal"}).types, (strings{"float", "double"}));
  EXPECT_EQ(parse({"--data", "spread"}).types, (strings{"float", "double"}));
  EXPECT_EQ(parse({"--types", "half", "--data", "spread"}).types, (strings{"half"}));
  EXPECT_EQ(parse({"--data", "normal", "--types", "half,double,float"}).types, (strings{"float", "double", "half"}));
  EXPECT_EQ(parse({"--data", "exact", "--types", "all"}).types.size(), 6u);
  // The command line.
  const cb::options o = parse({"--impl", "cured,cub", "--types", "float,double", "--ops", "sum,exact_sum", "--data",
                               "spread", "--sizes", "2^10..2^30", "--mode", "cold", "--format", "json"});
  EXPECT_EQ(o.impls, (strings{"cured", "cub"}));
  EXPECT_EQ(o.ops, (strings{"sum", "exact_sum"}));
  EXPECT_EQ(o.data, cb::data_family::spread);
  EXPECT_EQ(o.sizes.size(), 21u);
  // Errors: unknown names, and integer types, which have the exact family only.
  for (const char* bad : {"uniform", "Normal", "normal,spread"})
    expect_error(error_of({"--data", bad}), std::string("--data: ") + bad,
                 "not in {exact,normal,spread,cancel,boundary,subnormal}");
  expect_error(error_of({"--data", "normal", "--types", "float,int32"}), "'int32'", "normal");
  expect_error(error_of({"--types", "uint32", "--data", "spread"}), "'uint32'", "spread");
  expect_error(error_of({"--data", "spread", "--types", "all"}), "'int32'", "spread");
}

TEST(Options, Mode) {
  cb::options o = parse({"--mode", "cold"});
  EXPECT_TRUE(o.cold);
  EXPECT_FALSE(o.hot);
  o = parse({"--mode", "hot"});
  EXPECT_FALSE(o.cold);
  EXPECT_TRUE(o.hot);
  o = parse({"--mode", "both"});
  EXPECT_TRUE(o.cold && o.hot);
  expect_error(error_of({"--mode", "warm"}), "--mode: warm", "not in {cold,hot,both}");
  expect_error(error_of({"--mode", "Cold"}), "--mode: Cold", "not in");
}

TEST(Options, SamplesAndDevice) {
  EXPECT_EQ(parse({"--samples", "1"}).samples, 1);
  EXPECT_EQ(parse({"--samples", "250"}).samples, 250);
  EXPECT_EQ(parse({"--device", "0"}).device, 0);
  EXPECT_EQ(parse({"--device", "7"}).device, 7);
  expect_error(error_of({"--samples", "0"}), "--samples: Value 0", "not in range 1 to");
  expect_error(error_of({"--samples", "99999999999"}), "--samples: Value 99999999999", "not in range");
  for (const char* bad : {"-1", "x", "1.5", "010x", "0x10"})
    expect_error(error_of({"--samples", bad}), std::string("--samples: '") + bad + "'", "is not a whole number");
  for (const char* bad : {"-1", "gpu0", "+1"})
    expect_error(error_of({"--device", bad}), std::string("--device: '") + bad + "'", "is not a whole number");
  EXPECT_EQ(parse({"--samples", "010"}).samples, 10);  // decimal, never octal
}

TEST(Options, FormatAndOut) {
  EXPECT_EQ(parse({"--format", "table"}).fmt, cb::options::format::table);
  EXPECT_EQ(parse({"--format", "csv"}).fmt, cb::options::format::csv);
  EXPECT_EQ(parse({"--format", "json"}).fmt, cb::options::format::json);
  EXPECT_EQ(parse({"--format", "md"}).fmt, cb::options::format::md);
  expect_error(error_of({"--format", "xml"}), "--format: xml", "not in {table,csv,json,md}");
  EXPECT_EQ(parse({"--out", "report.json"}).out, "report.json");
  EXPECT_EQ(parse({"--out", "-dash.csv"}).out, "-dash.csv");
  EXPECT_EQ(parse({"--out=a=b"}).out, "a=b");
  for (auto f : {cb::options::format::table, cb::options::format::csv, cb::options::format::json,
                 cb::options::format::md})
    EXPECT_EQ(parse({"--format", std::string(cb::format_name(f)).c_str()}).fmt, f);
}

TEST(Options, Seed) {
  cb::options o = parse({"--seed", "42"});
  EXPECT_TRUE(o.seed_given);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(parse({"--seed", "0"}).seed, 0u);
  EXPECT_TRUE(parse({"--seed", "0"}).seed_given);
  EXPECT_EQ(parse({"--seed", "0xff"}).seed, 255u);
  EXPECT_EQ(parse({"--seed", "18446744073709551615"}).seed, UINT64_MAX);
  for (const char* bad : {"-1", "18446744073709551616", "abc", "0x", "0xfg", "1e3"})
    expect_error(error_of({"--seed", bad}), std::string("'") + bad + "'", "cannot parse seed");
}

TEST(Options, Flags) {
  EXPECT_TRUE(parse({"--list"}).list);
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_FALSE(parse({"--list"}).help);
  // --help is a flag like the others: main prints usage(); the rest of the line is still checked
  expect_error(error_of({"--help", "--block", "100"}), "--block: 100");
  // a flag takes no value (CLI11 would read "--sweep=0" as no --sweep)
  for (const std::string flag :
       {"--list=yes", "--help=1", "--version=x", "--sweep=0", "--axes-grid=1", "--segments-grid=1", "--sweep=true",
        "--list={}", "--sweep="})
    expect_error(error_of({flag.c_str()}), flag.substr(2, flag.find('=') - 2), "is a flag: it takes no value");
}

TEST(Options, LaterValuesWin) {
  EXPECT_EQ(parse({"--block", "64", "--block=128"}).block, 128);
  EXPECT_EQ(parse({"--impl", "cub", "--impl", "thrust"}).impls, (strings{"thrust"}));
  EXPECT_EQ(parse({"--format", "csv", "--format", "md"}).fmt, cb::options::format::md);
  EXPECT_EQ(parse({"--sizes", "1M", "--sizes", "2^10"}).sizes, (sizes{1024}));
  EXPECT_EQ(parse({"--seed", "1", "--seed", "2"}).seed, 2u);
}

TEST(Options, MissingValuesAndUnknownOptions) {
  for (const char* opt : {"--impl", "--steps", "--block", "--sizes", "--types", "--ops", "--mode", "--samples",
                          "--device", "--format", "--out", "--json", "--csv", "--md", "--seed", "--data", "--shape",
                          "--axes", "--segments"}) {
    expect_error(error_of({opt}), std::string(opt) + ": 1 required", "missing");
    // "--opt=" has no value, not the next argument's
    const std::string eq = std::string(opt) + "=";
    expect_error(error_of({eq.c_str(), "--list"}), std::string(opt) + ": needs a value");
    expect_error(error_of({opt, ""}), std::string(opt) + ": needs a value");
  }
  expect_error(error_of({"--", "--out="}), "'--out='", "cannot parse size");  // after --, a positional
  for (const char* bad : {"--frobnicate", "--frobnicate=3", "--Block", "--bloc", "-x", "-b", "--=x"})
    expect_error(error_of({bad}), bad, "not expected");
}

// ---- the seeds' positional form ---------------------------------------------------------

TEST(Positional, SizeStepThreads) {
  const cb::options o = parse({"4000x4000", "7", "256"});
  EXPECT_TRUE(o.seed_positional);
  EXPECT_EQ(o.sizes, (sizes{16000000}));
  EXPECT_EQ(o.impls, (strings{"step7", "cub", "thrust", "cpu"}));
  EXPECT_EQ(o.steps, (std::vector<int>{7}));
  EXPECT_EQ(o.block, 256);
  EXPECT_EQ(parse({"131072", "6", "128"}).block, 128);
}

TEST(Positional, ShorterForms) {
  cb::options o = parse({"1M"});
  EXPECT_TRUE(o.seed_positional);
  EXPECT_EQ(o.sizes, (sizes{1000000}));
  EXPECT_EQ(o.impls, (strings{"step1", "cub", "thrust", "cpu"}));
  EXPECT_EQ(o.block, 256);
  o = parse({"2^20", "10"});
  EXPECT_EQ(o.sizes, (sizes{two_to(20)}));
  EXPECT_EQ(o.impls, (strings{"step10", "cub", "thrust", "cpu"}));
}

TEST(Positional, MixesWithOptions) {
  cb::options o = parse({"1M", "3", "--format", "csv", "--types=double"});
  EXPECT_EQ(o.fmt, cb::options::format::csv);
  EXPECT_EQ(o.types, (strings{"double"}));
  EXPECT_EQ(o.impls, (strings{"step3", "cub", "thrust", "cpu"}));
  o = parse({"--block", "64", "1M", "2"});
  EXPECT_EQ(o.block, 64);
  EXPECT_EQ(parse({"1M", "--impl", "cured"}).impls, (strings{"cured"}));
  EXPECT_EQ(parse({"1M", "--steps", "4"}).impls,
            (strings{"step4", "cured", "cured-blocking", "cub", "cublas", "thrust", "floor", "cpu", "cpu-mt"}));
  EXPECT_EQ(parse({"--", "5"}).sizes, (sizes{5}));
  EXPECT_FALSE(parse({"--sizes", "5"}).seed_positional);
}

TEST(Positional, Errors) {
  expect_error(error_of({"12q"}), "'12q'", "cannot parse size");
  expect_error(error_of({"1M", "11"}), "'11'", "steps are 1 to 10");
  expect_error(error_of({"1M", "x"}), "'x'");
  expect_error(error_of({"1M", "3", "100"}), "THREADS: 100", "is not a power of two from 32 to 1024");
  expect_error(error_of({"1M", "3", "x"}), "THREADS: 'x'", "not a whole number");
  expect_error(error_of({"1M", "3", "256", "9"}), "9", "not expected");
  expect_error(error_of({"1M", "--sizes", "2"}), "'1M'", "--sizes");
  expect_error(error_of({"1M", "3", "--impl", "cub"}), "'3'", "--impl");
  expect_error(error_of({"1M", "3", "--steps", "4"}), "'3'", "--steps");
  expect_error(error_of({"1M", "3", "256", "--block", "64"}), "'256'", "--block");
  expect_error(error_of({"-5"}), "'-5'", "negative");
  expect_error(error_of({"---impl"}), "'---impl'", "cannot parse size");
}

// ---- axis workloads ----------------------------------------------------------------------

using shape = std::vector<std::int64_t>;

std::string shape_error(const std::string& text) {
  try {
    cb::parse_shape(text);
  } catch (const cb::parse_error& e) {
    return e.what();
  }
  return "";
}

TEST(ParseShape, ExtentsOfAnyRankAndSizeForm) {
  EXPECT_EQ(cb::parse_shape("4096x1024"), (shape{4096, 1024}));
  EXPECT_EQ(cb::parse_shape("7"), (shape{7}));
  EXPECT_EQ(cb::parse_shape("8x2^20x8"), (shape{8, two_to(20), 8}));
  EXPECT_EQ(cb::parse_shape("1Kix1e3x1"), (shape{1024, 1000, 1}));
  EXPECT_EQ(cb::parse_shape("1x2x3x4x5x6x7x8"), (shape{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(cb::parse_shape("2^31x2^31"), (shape{two_to(31), two_to(31)}));
}

TEST(ParseShape, BadShapesNameTheShape) {
  for (const char* bad : {"", "x", "4096x", "x1024", "4096xx1024", "4096xq", "q", "4096*1024", "4096x-5", "4096x1.5",
                          "4096, 1024"})
    expect_error(shape_error(bad), std::string("'") + bad + "'", "shape");
  expect_error(shape_error("4096xq"), "'4096xq'", "cannot parse size 'q'");
  expect_error(shape_error("4096x"), "'4096x'", "empty extent");
  expect_error(shape_error("4096x0"), "'4096x0'", "extents are at least 1");
  expect_error(shape_error("0"), "'0'", "extents are at least 1");
  expect_error(shape_error("1x2x3x4x5x6x7x8x9"), "'1x2x3x4x5x6x7x8x9'", "9 axes: at most 8");
  expect_error(shape_error("2^31x2^31x2"), "'2^31x2^31x2'", "more than 2^62 elements");
  expect_error(shape_error("2^63x1"), "'2^63x1'", "larger than 2^62");
}

TEST(ParseShapes, SemicolonsSpacesAndRepeats) {
  using shapes = std::vector<shape>;
  EXPECT_EQ(cb::parse_shapes("4096x1024;64x4096x64"), (shapes{{4096, 1024}, {64, 4096, 64}}));
  EXPECT_EQ(cb::parse_shapes("4096x1024 1024x4096"), (shapes{{4096, 1024}, {1024, 4096}}));
  EXPECT_EQ(cb::parse_shapes(" 4x4 ;  8x8\t16 "), (shapes{{4, 4}, {8, 8}, {16}}));
  auto error = [](const char* list) {
    try {
      cb::parse_shapes(list);
    } catch (const cb::parse_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  expect_error(error("4x4;;8x8"), "'4x4;;8x8'", "empty item");
  expect_error(error("4x4;"), "'4x4;'", "empty item");
  expect_error(error("  "), "'  '", "empty item");
  expect_error(error("4x4;8xz"), "'8xz'", "cannot parse shape");
}

TEST(ParseAxes, NumbersNegativeToo) {
  EXPECT_EQ(cb::parse_axes("1"), (std::vector<int>{1}));
  EXPECT_EQ(cb::parse_axes("0,2"), (std::vector<int>{0, 2}));
  EXPECT_EQ(cb::parse_axes("-1"), (std::vector<int>{-1}));
  EXPECT_EQ(cb::parse_axes("2,-3"), (std::vector<int>{2, -3}));  // as given: checked against each shape later
  auto error = [](const char* list) {
    try {
      cb::parse_axes(list);
    } catch (const cb::parse_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const char* bad : {"x", "-", "--1", "+1", "1.5", "1e1", "one", "99999999999"})
    expect_error(error(bad), std::string("'") + bad + "'", "cannot parse axis");
  expect_error(error("0,,1"), "'0,,1'", "empty item");
  expect_error(error("1,"), "'1,'", "empty item");
}

TEST(NormalizeAxes, RangeDuplicatesAndOrder) {
  EXPECT_EQ(cb::normalize_axes({-1}, 2, "4x4"), (std::vector<int>{1}));
  EXPECT_EQ(cb::normalize_axes({2, 0}, 3, "4x4x4"), (std::vector<int>{0, 2}));
  EXPECT_EQ(cb::normalize_axes({-3, -1}, 3, "4x4x4"), (std::vector<int>{0, 2}));
  auto error = [](std::vector<int> axes, int rank) {
    try {
      cb::normalize_axes(axes, rank, "SHAPE");
    } catch (const cb::parse_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  expect_error(error({2}, 2), "'SHAPE'", "axis 2 is out of range for shape 'SHAPE' (2 axes: -2..1)");
  expect_error(error({-3}, 2), "axis -3", "out of range");
  expect_error(error({1}, 1), "axis 1", "(1 axis: -1..0)");
  expect_error(error({1, -1}, 2), "axis 1 of shape 'SHAPE'", "named twice");
  expect_error(error({0, 0}, 3), "axis 0", "named twice");
}

TEST(AxisWorkload, Counts) {
  const cb::axis_workload rows{{4096, 1024}, {1}}, columns{{4096, 1024}, {0}}, middle{{64, 4096, 64}, {1}};
  EXPECT_EQ(rows.elements(), 4096 * 1024);
  EXPECT_EQ(rows.outputs(), 4096);
  EXPECT_EQ(rows.reduced(), 1024);
  EXPECT_EQ(columns.outputs(), 1024);
  EXPECT_EQ(middle.outputs(), 64 * 64);
  EXPECT_EQ(middle.reduced(), 4096);
  EXPECT_EQ((cb::axis_workload{{8, 16}, {0, 1}}.outputs()), 1);
  // rows: the reduced axes are the trailing ones (extents of 1 aside)
  EXPECT_TRUE(rows.rows());
  EXPECT_FALSE(columns.rows());
  EXPECT_FALSE(middle.rows());
  EXPECT_TRUE((cb::axis_workload{{4, 8, 16}, {1, 2}}.rows()));
  EXPECT_TRUE((cb::axis_workload{{4, 8, 16}, {0, 1, 2}}.rows()));
  EXPECT_TRUE((cb::axis_workload{{1, 1024}, {0}}.rows()));     // segments of one element
  EXPECT_TRUE((cb::axis_workload{{4, 1024, 1}, {1}}.rows()));  // the kept axis after it has extent 1
  EXPECT_FALSE((cb::axis_workload{{4, 8, 16}, {0, 2}}.rows()));
  EXPECT_EQ(cb::shape_text({8, 1048576, 8}), "8x1048576x8");
  EXPECT_EQ(cb::axes_text({0, 2}), "0,2");
}

TEST(AxisOptions, ShapeAndAxes) {
  const cb::options o = parse({"--shape", "4096x1024", "--axes", "1"});
  ASSERT_EQ(o.workloads.size(), 1u);
  EXPECT_TRUE(o.axis_mode());
  EXPECT_FALSE(o.axes_grid);
  EXPECT_EQ(o.workloads[0].shape, (shape{4096, 1024}));
  EXPECT_EQ(o.workloads[0].axes, (std::vector<int>{1}));
  EXPECT_TRUE(o.sizes.empty());
  EXPECT_EQ(o.impls, (strings{"cured", "cub", "floor"}));
  EXPECT_EQ(o.ops, (strings{"sum"}));
  EXPECT_EQ(o.types, (strings{"float", "int32"}));
  EXPECT_FALSE(parse({}).axis_mode());
  // any rank, negative axes, several shapes: a list, or the option again (every shape kept, in order)
  const cb::options m = parse({"--shape", "64x4096x64;8x8", "--shape=2x3x4", "--axes=-1,0"});
  ASSERT_EQ(m.workloads.size(), 3u);
  EXPECT_EQ(m.workloads[0].axes, (std::vector<int>{0, 2}));
  EXPECT_EQ(m.workloads[1].shape, (shape{8, 8}));
  EXPECT_EQ(m.workloads[1].axes, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.workloads[2].shape, (shape{2, 3, 4}));
  EXPECT_EQ(parse({"--shape", "4x4 4x4", "--axes", "1"}).workloads.size(), 1u);  // duplicates dropped
  EXPECT_EQ(parse({"--shape", "4x4", "--axes", "0", "--axes", "1"}).workloads[0].axes, (std::vector<int>{1}));
  // the axis implementations and ops
  EXPECT_EQ(parse({"--shape", "4x4", "--axes", "1", "--impl", "floor,cured"}).impls, (strings{"cured", "floor"}));
  EXPECT_EQ(parse({"--shape", "4x4", "--axes", "1", "--ops", "all"}).ops,
            (strings{"sum", "exact_sum", "min", "max", "argmin", "argmax"}));
  EXPECT_EQ(parse({"--shape", "4x4", "--axes", "1", "--ops", "argmax,sum,min"}).ops, (strings{"sum", "min", "argmax"}));
  const cb::options t = parse({"--shape", "4x4", "--axes", "1", "--types", "half,double", "--mode", "cold", "--format",
                               "json", "--samples", "5", "--seed", "3", "--data", "exact"});
  EXPECT_EQ(t.types, (strings{"double", "half"}));
  EXPECT_FALSE(t.hot);
  EXPECT_EQ(t.fmt, cb::options::format::json);
  EXPECT_EQ(strings(cb::axis_implementation_names().begin(), cb::axis_implementation_names().end()),
            (strings{"cured", "cub", "floor"}));
  EXPECT_EQ(strings(cb::axis_op_names().begin(), cb::axis_op_names().end()),
            (strings{"sum", "exact_sum", "min", "max", "argmin", "argmax"}));
}

TEST(AxisOptions, Errors) {
  expect_error(error_of({"--shape", "4096x1024"}), "--shape", "needs --axes");
  expect_error(error_of({"--axes", "1"}), "--axes", "needs --shape");
  expect_error(error_of({"--shape", "4096x1024", "--axes", "2"}), "'4096x1024'", "axis 2 is out of range");
  expect_error(error_of({"--shape", "4x4x4;4x4", "--axes", "2"}), "'4x4'", "out of range");
  expect_error(error_of({"--shape", "4096x1024", "--axes", "1,-1"}), "'4096x1024'", "named twice");
  expect_error(error_of({"--shape", "4096xq", "--axes", "1"}), "'4096xq'", "cannot parse shape");
  expect_error(error_of({"--shape", "4096x0", "--axes", "1"}), "'4096x0'", "at least 1");
  expect_error(error_of({"--shape", "4096x1024", "--axes", "a"}), "'a'", "cannot parse axis");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--sizes", "1M"}), "--sizes", "does not apply with --shape");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--steps", "3"}), "--steps", "does not apply");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--block", "64"}), "--block", "does not apply");
  expect_error(error_of({"1M", "--shape", "4x4", "--axes", "1"}), "'1M'", "does not apply with --shape");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--data", "normal"}), "--data normal", "exact");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--impl", "thrust"}), "'thrust'",
               "does not run on axis workloads (--shape takes cured, cub, floor)");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--impl", "ladder"}), "'ladder'", "axis workloads");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--impl", "foo"}), "'foo'", "unknown implementation");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--ops", "median"}), "'median'", "unknown op");
  expect_error(error_of({"--axes-grid", "--shape", "4x4", "--axes", "1"}), "--axes-grid", "without --shape");
  expect_error(error_of({"--axes-grid", "--axes", "1"}), "--axes-grid", "without --shape and --axes");
  expect_error(error_of({"--axes-grid", "--sizes", "2^20"}), "--sizes", "does not apply with --axes-grid");
}

TEST(AxisOptions, TheGrid) {
  const cb::options o = parse({"--axes-grid", "--types", "float,int32,half,double", "--ops", "sum,min,max,argmax"});
  EXPECT_TRUE(o.axes_grid);
  EXPECT_EQ(o.workloads, cb::default_axis_grid());
  EXPECT_EQ(o.ops, (strings{"sum", "min", "max", "argmax"}));
  EXPECT_EQ(o.impls, (strings{"cured", "cub", "floor"}));
  const auto grid = cb::default_axis_grid();
  // 2-D: rows 1, 4, ..., <= n/2 for n = 2^20 (10 rows), 2^24 (12), 2^28 (14), along axis 1 and axis 0
  std::size_t two_d = 0;
  for (const int e : {20, 24, 28}) {
    std::vector<std::int64_t> rows_seen[2];
    for (const auto& w : grid) {
      if (w.shape.size() != 2 || w.elements() != two_to(e)) continue;
      ASSERT_EQ(w.axes.size(), 1u);
      rows_seen[w.axes[0]].push_back(w.shape[0]);
      ++two_d;
    }
    std::vector<std::int64_t> want;
    for (std::int64_t r = 1; r <= two_to(e) / 2; r *= 4) want.push_back(r);
    EXPECT_EQ(rows_seen[0], want) << "2^" << e;
    EXPECT_EQ(rows_seen[1], want) << "2^" << e;
    EXPECT_EQ(want.back(), two_to(e - 2));
  }
  EXPECT_EQ(two_d, 2u * (10 + 12 + 14));
  const std::vector<cb::axis_workload> three_d = {{{64, 4096, 64}, {1}},
                                                  {{1024, 256, 256}, {1}},
                                                  {{8, two_to(20), 8}, {1}},
                                                  {{4096, 64, 256}, {1}}};
  EXPECT_EQ(std::vector<cb::axis_workload>(grid.end() - 4, grid.end()), three_d);
  EXPECT_EQ(grid.size(), two_d + 4);
}

// ---- segmented workloads -----------------------------------------------------------------

namespace {

using dist = cb::segment_distribution;
using kind = cb::segment_distribution::kind;

std::string distribution_error(const std::string& text) {
  try {
    cb::parse_distribution(text);
  } catch (const cb::parse_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ParseDistribution, EveryDistributionAndItsText) {
  EXPECT_EQ(cb::parse_distribution("uniform:4"), (dist{kind::uniform, 4}));
  EXPECT_EQ(cb::parse_distribution("uniform:1"), (dist{kind::uniform, 1}));
  EXPECT_EQ(cb::parse_distribution("uniform:2^20"), (dist{kind::uniform, two_to(20)}));
  EXPECT_EQ(cb::parse_distribution("uniform:1Ki"), (dist{kind::uniform, 1024}));
  EXPECT_EQ(cb::parse_distribution("uniform:1e3"), (dist{kind::uniform, 1000}));
  EXPECT_EQ(cb::parse_distribution("powerlaw"), (dist{kind::powerlaw}));
  EXPECT_EQ(cb::parse_distribution("onebig"), (dist{kind::onebig}));
  EXPECT_EQ(cb::parse_distribution("empty-mixed"), (dist{kind::empty_mixed}));
  for (const char* text : {"uniform:4", "uniform:268435456", "powerlaw", "onebig", "empty-mixed"})
    EXPECT_EQ(cb::distribution_text(cb::parse_distribution(text)), text);
  EXPECT_EQ(cb::distribution_text(cb::parse_distribution("uniform:2^10")), "uniform:1024");
}

TEST(ParseDistribution, BadOnesNameThemselves) {
  expect_error(distribution_error("uniform:0"), "'uniform:0'", "at least 1");
  expect_error(distribution_error("uniform:x"), "'uniform:x'", "cannot parse size 'x'");
  expect_error(distribution_error("uniform:-4"), "'uniform:-4'");
  expect_error(distribution_error("uniform:"), "'uniform:'");
  expect_error(distribution_error("uniform"), "'uniform'", "uniform:L");
  expect_error(distribution_error("zipf"), "'zipf'", "unknown segment distribution");
  expect_error(distribution_error("powerlaw:2"), "'powerlaw:2'", "unknown segment distribution");
  expect_error(distribution_error("Uniform:4"), "'Uniform:4'", "unknown segment distribution");
  expect_error(distribution_error("empty_mixed"), "'empty_mixed'", "(uniform:L, powerlaw, onebig or empty-mixed)");
}

TEST(ParseDistributions, CommasSemicolonsOrderAndDuplicates) {
  EXPECT_EQ(cb::parse_distributions("onebig,uniform:4;powerlaw"),
            (std::vector<dist>{{kind::onebig}, {kind::uniform, 4}, {kind::powerlaw}}));
  EXPECT_EQ(cb::parse_distributions("uniform:4;uniform:2^2,empty-mixed,uniform:4"),
            (std::vector<dist>{{kind::uniform, 4}, {kind::empty_mixed}}));
  for (const char* bad : {"uniform:4,,powerlaw", "powerlaw;", ",onebig", ""})
    expect_error([&] {
      try {
        cb::parse_distributions(bad);
      } catch (const cb::parse_error& e) {
        return std::string(e.what());
      }
      return std::string();
    }(), "empty item");
  EXPECT_THROW(cb::parse_distributions("uniform:4,zipf"), cb::parse_error);
}

TEST(Options, TypesOfEachWorkload) {
  // uint32 has whole arrays only (bench/types.txt): "all" leaves it out of the axis and
  // segmented workloads, naming it is an error that lists the types they take.
  const strings five{"float", "double", "int32", "half", "bfloat16"};
  EXPECT_EQ(parse({"--shape", "64x64", "--axes", "1", "--types", "all"}).types, five);
  EXPECT_EQ(parse({"--segments", "uniform:4", "--types", "all"}).types, five);
  EXPECT_EQ(parse({"--types", "all"}).types.size(), 6u);
  expect_error(error_of({"--shape", "64x64", "--axes", "1", "--types", "uint32"}), "'uint32' has no axis workloads",
               "--shape takes float, double, int32, half, bfloat16");
  expect_error(error_of({"--segments-grid", "--types", "int32,uint32"}), "'uint32' has no segmented workloads",
               "--segments-grid takes");
}

TEST(SegmentOptions, DefaultsAndEachDistribution) {
  const cb::options o = parse({"--segments", "uniform:4,powerlaw;onebig,empty-mixed"});
  EXPECT_TRUE(o.segment_mode());
  EXPECT_FALSE(o.axis_mode());
  EXPECT_FALSE(o.segments_grid);
  EXPECT_EQ(o.sizes, cb::default_segment_sizes());
  EXPECT_EQ(o.sizes, (sizes{two_to(24), two_to(28)}));
  const std::vector<dist> four = {{kind::uniform, 4}, {kind::powerlaw}, {kind::onebig}, {kind::empty_mixed}};
  ASSERT_EQ(o.segment_workloads.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(o.segment_workloads[i].n, i < 4 ? two_to(24) : two_to(28)) << i;  // by size, then as given
    EXPECT_EQ(o.segment_workloads[i].dist, four[i % 4]) << i;
  }
  EXPECT_EQ(o.impls, (strings{"cured", "cub", "floor"}));
  EXPECT_EQ(o.ops, (strings{"sum"}));
  EXPECT_EQ(o.types, (strings{"float", "int32"}));
  EXPECT_EQ(o.data, cb::data_family::exact);
  EXPECT_TRUE(o.workloads.empty());
  EXPECT_FALSE(parse({}).segment_mode());
  // --sizes, any order; a uniform length above n is kept (one segment of n)
  const cb::options s = parse({"--segments", "uniform:2^20", "--sizes", "2^20,1000"});
  EXPECT_EQ(s.sizes, (sizes{1000, two_to(20)}));
  ASSERT_EQ(s.segment_workloads.size(), 2u);
  EXPECT_EQ(s.segment_workloads[0], (cb::segment_workload{1000, {kind::uniform, two_to(20)}}));
  EXPECT_EQ(s.segment_workloads[1], (cb::segment_workload{two_to(20), {kind::uniform, two_to(20)}}));
  // the implementations, ops and types of the mode
  EXPECT_EQ(parse({"--segments", "onebig", "--impl", "floor,cured"}).impls, (strings{"cured", "floor"}));
  EXPECT_EQ(parse({"--segments=onebig", "--ops", "all"}).ops, (strings{"sum", "exact_sum", "min", "max", "argmin", "argmax"}));
  EXPECT_EQ(parse({"--segments", "onebig", "--ops", "argmax,sum"}).ops, (strings{"sum", "argmax"}));
  const cb::options t = parse({"--segments", "powerlaw", "--types", "half,double,int32", "--mode", "cold", "--format",
                               "json", "--samples", "5", "--seed", "3", "--data", "exact"});
  EXPECT_EQ(t.types, (strings{"double", "int32", "half"}));
  EXPECT_FALSE(t.hot);
  EXPECT_EQ(t.seed, 3u);
  EXPECT_EQ(t.fmt, cb::options::format::json);
  EXPECT_EQ(strings(cb::segment_implementation_names().begin(), cb::segment_implementation_names().end()),
            (strings{"cured", "cured-pairs", "cub", "floor"}));
  EXPECT_EQ(parse({"--segments", "onebig", "--impl", "cured-pairs,cured"}).impls, (strings{"cured", "cured-pairs"}));
  EXPECT_EQ(parse({"--segments", "onebig", "--impl", "all"}).impls, (strings{"cured", "cured-pairs", "cub", "floor"}));
  EXPECT_EQ(parse({}).impls, all_impls);  // the pair form is left out of the whole-array "all"
  expect_error(error_of({"--impl", "cured-pairs"}), "'cured-pairs'", "segmented workloads only");
  expect_error(error_of({"--shape", "4x4", "--axes", "1", "--impl", "cured-pairs"}), "'cured-pairs'");
  EXPECT_EQ(strings(cb::segment_op_names().begin(), cb::segment_op_names().end()),
            (strings{"sum", "exact_sum", "min", "max", "argmin", "argmax"}));
  // the last --segments wins
  EXPECT_EQ(parse({"--segments", "onebig", "--segments", "powerlaw"}).segment_workloads.size(), 2u);
}

TEST(SegmentOptions, Errors) {
  expect_error(error_of({"--segments", "uniform:0"}), "'uniform:0'", "at least 1");
  expect_error(error_of({"--segments", "uniform:x"}), "'uniform:x'");
  expect_error(error_of({"--segments", "zipf"}), "'zipf'", "unknown segment distribution");
  expect_error(error_of({"--segments", "powerlaw,"}), "'powerlaw,'", "empty item");
  expect_error(error_of({"--segments", "onebig", "--shape", "4x4", "--axes", "1"}), "--shape",
               "does not apply with --segments");
  expect_error(error_of({"--segments", "onebig", "--axes", "1"}), "--axes", "does not apply with --segments");
  expect_error(error_of({"--segments-grid", "--axes-grid"}), "--axes-grid", "does not apply with --segments-grid");
  expect_error(error_of({"--segments-grid", "--segments", "onebig"}), "--segments-grid", "without --segments");
  expect_error(error_of({"--segments", "onebig", "--steps", "3"}), "--steps", "does not apply with --segments");
  expect_error(error_of({"--segments", "onebig", "--block", "64"}), "--block", "does not apply");
  expect_error(error_of({"1M", "--segments", "onebig"}), "'1M'", "does not apply with --segments");
  expect_error(error_of({"--segments", "onebig", "--data", "normal"}), "--data normal", "exact");
  expect_error(error_of({"--segments", "onebig", "--impl", "thrust"}), "'thrust'",
               "does not run on segmented workloads (--segments takes cured, cured-pairs, cub, floor)");
  expect_error(error_of({"--segments-grid", "--impl", "ladder"}), "'ladder'", "(--segments-grid takes");
  expect_error(error_of({"--segments", "onebig", "--impl", "foo"}), "'foo'", "unknown implementation");
  expect_error(error_of({"--segments", "onebig", "--ops", "median"}), "'median'", "unknown op");
  expect_error(error_of({"--segments", "onebig", "--sizes", "0,16"}), "size 0", "at least 1");
}

TEST(SegmentOptions, TheGrid) {
  const cb::options o = parse({"--segments-grid", "--types", "float,int32,double", "--ops", "sum,min,max,argmax,exact_sum"});
  EXPECT_TRUE(o.segments_grid);
  EXPECT_TRUE(o.segment_mode());
  EXPECT_EQ(o.sizes, (sizes{two_to(24), two_to(28)}));
  EXPECT_EQ(o.ops, (strings{"sum", "exact_sum", "min", "max", "argmax"}));
  EXPECT_EQ(o.impls, (strings{"cured", "cub", "floor"}));
  const auto grid = cb::default_segment_grid();
  ASSERT_EQ(grid.size(), 15u + 3);
  for (int k = 0; k <= 14; ++k) EXPECT_EQ(grid[std::size_t(k)], (dist{kind::uniform, two_to(2 * k)})) << k;
  EXPECT_EQ(std::vector<dist>(grid.end() - 3, grid.end()),
            (std::vector<dist>{{kind::powerlaw}, {kind::onebig}, {kind::empty_mixed}}));
  // uniform lengths above n left out: 1 .. 4^12 at 2^24, 1 .. 4^14 at 2^28
  EXPECT_EQ(o.segment_workloads, cb::segment_workloads_of(o.sizes, grid, true));
  ASSERT_EQ(o.segment_workloads.size(), (13u + 3) + (15u + 3));
  for (const auto& w : o.segment_workloads) {
    if (w.dist.k == kind::uniform) {
      EXPECT_LE(w.dist.length, w.n);
    }
  }
  EXPECT_EQ(o.segment_workloads[12].dist, (dist{kind::uniform, two_to(24)}));
  EXPECT_EQ(o.segment_workloads[13].dist, (dist{kind::powerlaw}));
  EXPECT_EQ(o.segment_workloads[16].n, two_to(28));
  EXPECT_EQ(o.segment_workloads.back(), (cb::segment_workload{two_to(28), {kind::empty_mixed}}));
  // other sizes with the grid: its distributions at each
  const cb::options small = parse({"--segments-grid", "--sizes", "2^10,1000"});
  EXPECT_EQ(small.segment_workloads.size(), (5u + 3) + (6u + 3));  // 1 .. 256 below 1000, 1 .. 1024 at 2^10
}

TEST(Usage, NamesEveryOption) {
  const std::string u = cb::usage();
  ASSERT_FALSE(u.empty());
  EXPECT_EQ(u.back(), '\n');
  std::string flat;  // the text with each run of spaces and line breaks one space
  for (const char c : u)
    if (c != ' ' && c != '\n') {
      flat += c;
    } else if (!flat.empty() && flat.back() != ' ') {
      flat += ' ';
    }
  for (const char* opt : {"--impl", "--steps", "--block", "--sizes", "--types", "--ops", "--mode", "--samples",
                          "--device", "--format", "--out", "--seed", "--data", "--list", "--help", "-h",
                          "--json", "--csv", "--md", "--sweep", "--version",
                          "N [STEP [THREADS]]", "--shape", "--axes", "--axes-grid", "--segments", "--segments-grid",
                          "uniform:L", "powerlaw", "onebig", "empty-mixed"})
    EXPECT_NE(u.find(opt), std::string::npos) << opt;
  for (const auto name : cb::type_names()) EXPECT_NE(u.find(name), std::string::npos) << name;
  for (const auto name : cb::op_names()) EXPECT_NE(u.find(name), std::string::npos) << name;
  for (const auto name : cb::data_names()) EXPECT_NE(u.find(name), std::string::npos) << name;
  // axis and segmented workloads: each its list of ops, from its table
  const std::string ops_line = "--ops takes sum exact_sum min max argmin argmax, or all [default: sum]";
  EXPECT_NE(flat.find(ops_line), std::string::npos) << u;
  EXPECT_NE(flat.find(ops_line), flat.rfind(ops_line));
  // the defaults the help names are the parser's
  EXPECT_NE(u.find("[default: 256]"), std::string::npos);
  EXPECT_NE(u.find("[default: both]"), std::string::npos);
  EXPECT_NE(u.find("[default: exact]"), std::string::npos);
  EXPECT_NE(u.find("[default: table]"), std::string::npos);
  const std::string sizes_default = "[default: ";
  const auto at = u.find(sizes_default, u.find("--sizes LIST"));
  ASSERT_NE(at, std::string::npos);
  const auto end = u.find(']', at);
  EXPECT_EQ(cb::parse_sizes(u.substr(at + sizes_default.size(), end - at - sizes_default.size())), cb::default_sizes());
}

TEST(Usage, Layout) {
  const std::string u = cb::usage();
  EXPECT_EQ(u.rfind("usage: cured-bench [options]\n", 0), 0u);
  EXPECT_NE(u.find("\n  --impl LIST      implementations:"), std::string::npos);  // descriptions in one column
  EXPECT_NE(u.find("\n  --segments DISTS how"), std::string::npos);
  EXPECT_NE(u.find("\n\naxis workloads ("), std::string::npos);
  EXPECT_NE(u.find("\n\nsegmented workloads ("), std::string::npos);
  EXPECT_EQ(u.find("\n\n\n"), std::string::npos);
  EXPECT_EQ(u.find("Positionals"), std::string::npos);  // the seeds' form is a usage form
  EXPECT_NE(u.find("\nexit status: 0 when"), std::string::npos);
  // lines of at most 90 characters, but for a word longer than the room left
  std::size_t start = 0;
  while (start < u.size()) {
    const std::size_t end = u.find('\n', start);
    const std::string line = u.substr(start, end - start);
    if (line.size() > 90) {
      EXPECT_EQ(line.find(' ', line.find_first_not_of(' ')), std::string::npos) << line;
    }
    EXPECT_TRUE(line.empty() || line.back() != ' ') << "'" << line << "'";
    start = end + 1;
  }
}
