// The C interface's tables (cured_c.h): every row reported, and every combination of op or
// statistic, input type and requested type that the rules allow called, along axes and per
// segment, with its result checked (on a GPU; the rules themselves without one).

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "cured_c.h"
#include "tests/c/c_arrays.hpp"
#include "tests/support/gpu.cuh"

namespace {

std::string message() { return cured_last_error(); }

cured_dtype_info dtype_row(std::int32_t t) {
  cured_dtype_info info{};
  EXPECT_EQ(cured_dtype_query(t, &info), CURED_SUCCESS) << message();
  return info;
}

cured_reduction_info op_row(std::int32_t op) {
  cured_reduction_info info{};
  EXPECT_EQ(cured_op_query(op, &info), CURED_SUCCESS) << message();
  return info;
}

cured_reduction_info statistic_row(std::int32_t s) {
  cured_reduction_info info{};
  EXPECT_EQ(cured_statistic_query(s, &info), CURED_SUCCESS) << message();
  return info;
}

TEST(CTable, EveryRowIsReportedAndNoneBeyond) {
  std::set<std::string> names;
  for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t) {
    const cured_dtype_info r = dtype_row(t);
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_EQ(r.dlpack_bits, 8 * r.bytes) << r.name;
    EXPECT_TRUE(r.kind >= CURED_KIND_BOOL && r.kind <= CURED_KIND_FLOATING) << r.name;
  }
  cured_dtype_info d{};
  EXPECT_EQ(cured_dtype_query(CURED_DTYPE_COUNT, &d), CURED_ERROR_INVALID);
  EXPECT_EQ(cured_dtype_query(-1, &d), CURED_ERROR_INVALID);
  EXPECT_EQ(cured_dtype_query(0, nullptr), CURED_ERROR_INVALID);
  EXPECT_STREQ(dtype_row(CURED_FLOAT32).name, "float32");
  EXPECT_STREQ(dtype_row(CURED_BFLOAT16).typestr, "");
  names.clear();
  for (std::int32_t op = 0; op < CURED_OP_COUNT; ++op) EXPECT_TRUE(names.insert(op_row(op).name).second);
  for (std::int32_t s = 0; s < CURED_STATISTIC_COUNT; ++s) EXPECT_TRUE(names.insert(statistic_row(s).name).second);
  cured_reduction_info r{};
  EXPECT_EQ(cured_op_query(CURED_OP_COUNT, &r), CURED_ERROR_INVALID);
  EXPECT_EQ(cured_statistic_query(CURED_STATISTIC_COUNT, &r), CURED_ERROR_INVALID);
  EXPECT_STREQ(statistic_row(CURED_VECTOR_NORM).name, "vector_norm");
  EXPECT_EQ(statistic_row(CURED_AMINMAX).parts, 2);
}

TEST(CTable, TheSegmentRulesAreTheAxesRulesOnTheSegmentTypes) {
  std::int32_t a = 0, s = 0;
  for (std::int32_t op = 0; op < CURED_OP_COUNT; ++op)
    for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t)
      for (std::int32_t req = -1; req < CURED_DTYPE_COUNT; ++req) {
        const bool axes = cured_result_dtype(op, t, req, &a) == CURED_SUCCESS;
        const bool segs = cured_segment_result_dtype(op, t, req, &s) == CURED_SUCCESS;
        EXPECT_EQ(segs, axes && dtype_row(t).segments) << op << " " << t << " " << req;
        if (segs) {
          EXPECT_EQ(a, s);
        }
      }
  for (std::int32_t st = 0; st < CURED_STATISTIC_COUNT; ++st)
    for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t) {
      const bool axes = cured_statistic_dtype(st, t, &a) == CURED_SUCCESS;
      const bool segs = cured_segment_statistic_dtype(st, t, &s) == CURED_SUCCESS;
      const std::int32_t result = statistic_row(st).result;
      const bool counts = result == CURED_RESULT_COUNT || result == CURED_RESULT_TRUTH;
      EXPECT_EQ(segs, axes && (counts || dtype_row(t).segments)) << st << " " << t;
    }
  EXPECT_EQ(cured_segment_result_dtype(CURED_SUM, CURED_FLOAT16, CURED_FLOAT32, &s), CURED_SUCCESS) << message();
  EXPECT_EQ(s, CURED_FLOAT32);
  EXPECT_EQ(cured_segment_result_dtype(CURED_SUM, CURED_INT8, -1, &s), CURED_ERROR_UNSUPPORTED);
  EXPECT_NE(message().find("no segmented sum of int8"), std::string::npos) << message();
  EXPECT_EQ(cured_segment_statistic_dtype(CURED_COUNT_NONZERO, CURED_INT8, &s), CURED_SUCCESS) << message();
}

// ---- every allowed combination, on a GPU ---------------------------------------------------

/// `count` copies of the value v in type t's bytes.
std::vector<unsigned char> filled(std::int32_t t, double v, std::size_t count) {
  const cured_dtype_info r = dtype_row(t);
  std::vector<unsigned char> bytes(count * r.bytes);
  for (std::size_t i = 0; i < count; ++i) {
    unsigned char* p = bytes.data() + i * r.bytes;
    if (t == CURED_FLOAT16) {
      const __half h = __double2half(v);
      std::memcpy(p, &h, 2);
    } else if (t == CURED_BFLOAT16) {
      const __nv_bfloat16 h = __double2bfloat16(v);
      std::memcpy(p, &h, 2);
    } else if (t == CURED_FLOAT32) {
      const float f = float(v);
      std::memcpy(p, &f, 4);
    } else if (t == CURED_FLOAT64) {
      std::memcpy(p, &v, 8);
    } else {
      const std::int64_t k = std::int64_t(v);
      std::memcpy(p, &k, r.bytes);  // little-endian: the low bytes
    }
  }
  return bytes;
}

/// Element i of type t at p, as a double.
double element(std::int32_t t, const unsigned char* p, std::size_t i) {
  p += i * dtype_row(t).bytes;
  switch (t) {
    case CURED_BOOL:
    case CURED_UINT8: return *p;
    case CURED_INT8: return double(std::int8_t(*p));
    case CURED_INT16: { std::int16_t v; std::memcpy(&v, p, 2); return v; }
    case CURED_INT32: { std::int32_t v; std::memcpy(&v, p, 4); return v; }
    case CURED_INT64: { std::int64_t v; std::memcpy(&v, p, 8); return double(v); }
    case CURED_FLOAT16: { __half v; std::memcpy(&v, p, 2); return __half2float(v); }
    case CURED_BFLOAT16: { __nv_bfloat16 v; std::memcpy(&v, p, 2); return __bfloat162float(v); }
    case CURED_FLOAT32: { float v; std::memcpy(&v, p, 4); return v; }
    default: { double v; std::memcpy(&v, p, 8); return v; }
  }
}

class CTableGpu : public ::testing::Test {
protected:
  void SetUp() override {
    if (!cured::test::no_gpu_reason().empty()) GTEST_SKIP() << cured::test::no_gpu_reason();
  }
};

/// Device memory of `bytes` bytes, poisoned, freed at the end of the scope.
struct device_bytes {
  void* p = nullptr;
  explicit device_bytes(std::size_t bytes) {
    EXPECT_EQ(cudaMalloc(&p, bytes + 16), cudaSuccess);
    EXPECT_EQ(cudaMemset(p, 0x5a, bytes + 16), cudaSuccess);
  }
  device_bytes(const device_bytes&) = delete;
  device_bytes& operator=(const device_bytes&) = delete;
  ~device_bytes() { cudaFree(p); }
  std::vector<unsigned char> host(std::size_t bytes) const {
    std::vector<unsigned char> h(bytes);
    EXPECT_EQ(cudaMemcpy(h.data(), p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

using cured::test::array_of;

// Inputs: every element 2 (a value every type holds exactly; 1 for bool). Along axes: 3 rows of 5
// reduced along axis 1; per segment: 10 values in segments [0, 4), [4, 10).
constexpr int rows = 3, cols = 5;
const std::vector<std::int64_t> segment_offsets = {0, 4, 10};

double value_of(std::int32_t t) { return t == CURED_BOOL ? 1 : 2; }

/// The inputs of one type on the device: rows * cols values v, and the offsets.
struct inputs {
  device_bytes values, offsets;
  inputs(std::int32_t t, double v) : values(std::size_t(rows) * cols * 8), offsets(3 * 8) {
    const std::vector<unsigned char> bytes = filled(t, v, rows * cols);
    EXPECT_EQ(cudaMemcpy(values.p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(offsets.p, segment_offsets.data(), 3 * 8, cudaMemcpyHostToDevice), cudaSuccess);
  }
};

/// What op gives on `n` values v.
double expected_op(std::int32_t op, double v, int n) {
  switch (op) {
    case CURED_SUM:
    case CURED_EXACT_SUM: return v * n;
    case CURED_ARGMIN:
    case CURED_ARGMAX: return 0;
    default: return v;
  }
}

/// What a statistic's first and second outputs are on `n` values v (correction 1, p 2).
std::pair<double, double> expected_statistic(std::int32_t s, double v, int n) {
  switch (s) {
    case CURED_MEAN: return {v, 0};
    case CURED_VAR:
    case CURED_STD: return {0, 0};
    case CURED_VAR_MEAN:
    case CURED_STD_MEAN: return {0, v};
    case CURED_VECTOR_NORM: return {v * std::sqrt(double(n)), 0};
    case CURED_LOGSUMEXP: return {v + std::log(double(n)), 0};
    case CURED_AMINMAX: return {v, v};
    case CURED_COUNT_NONZERO: return {double(n), 0};
    default: return {1, 0};  // any, all
  }
}

double param_of(std::int32_t s) {
  const std::int32_t p = statistic_row(s).param;
  return p == CURED_PARAM_CORRECTION ? 1.0 : p == CURED_PARAM_ORDER ? 2.0 : 0.0;
}

void expect_near(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-2 * (1 + std::fabs(want))) << what;
}

TEST_F(CTableGpu, EveryOpOfEveryTypeTheRulesAllow) {
  int called = 0;
  for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t) {
    const double v = value_of(t);
    const inputs x_in(t, v);
    const device_bytes& in = x_in.values;
    const device_bytes& off = x_in.offsets;
    for (std::int32_t op = 0; op < CURED_OP_COUNT; ++op)
      for (std::int32_t req = -1; req < CURED_DTYPE_COUNT; ++req) {
        const std::string what = std::string(op_row(op).name) + " of " + dtype_row(t).name + " as " +
                                 (req < 0 ? "default" : dtype_row(req).name);
        std::int32_t o = 0;
        if (cured_result_dtype(op, t, req, &o) == CURED_SUCCESS) {
          device_bytes out(rows * 8);
          const cured_array x = array_of(in.p, t, {rows, cols}, {cols, 1}), y = array_of(out.p, o, {rows}, {1});
          const std::int32_t axis = 1;
          ASSERT_EQ(cured_reduce(op, &x, &axis, 1, &y, nullptr, nullptr, nullptr), CURED_SUCCESS) << what << ": "
                                                                                                  << message();
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          const auto h = out.host(rows * 8);
          for (int r = 0; r < rows; ++r) expect_near(element(o, h.data(), r), expected_op(op, v, cols), what);
          ++called;
        }
        if (cured_segment_result_dtype(op, t, req, &o) == CURED_SUCCESS) {
          device_bytes out(2 * 8);
          const cured_array x = array_of(in.p, t, {10}, {1}), y = array_of(out.p, o, {2}, {1});
          ASSERT_EQ(cured_segment_reduce(op, &x, static_cast<const std::int64_t*>(off.p), 2, &y, nullptr, 1, nullptr,
                                         nullptr),
                    CURED_SUCCESS)
              << "segmented " << what << ": " << message();
          const auto h = out.host(2 * 8);
          expect_near(element(o, h.data(), 0), expected_op(op, v, 4), "segmented " + what);
          expect_near(element(o, h.data(), 1), expected_op(op, v, 6), "segmented " + what);
          ++called;
        }
      }
  }
  EXPECT_GT(called, 100);
}

TEST_F(CTableGpu, EveryStatisticOfEveryTypeTheRulesAllow) {
  int called = 0;
  for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t) {
    const double v = value_of(t);
    const inputs x_in(t, v);
    const device_bytes& in = x_in.values;
    const device_bytes& off = x_in.offsets;
    for (std::int32_t s = 0; s < CURED_STATISTIC_COUNT; ++s) {
      const cured_reduction_info row = statistic_row(s);
      const std::string what = std::string(row.name) + " of " + dtype_row(t).name;
      const bool two = row.parts == 2;
      std::int32_t o = 0;
      if (cured_statistic_dtype(s, t, &o) == CURED_SUCCESS) {
        device_bytes out(rows * 8), second(rows * 8);
        const cured_array x = array_of(in.p, t, {rows, cols}, {cols, 1});
        const cured_array y = array_of(out.p, o, {rows}, {1}), z = array_of(second.p, o, {rows}, {1});
        const std::int32_t axis = 1;
        ASSERT_EQ(cured_statistic_reduce(s, &x, &axis, 1, param_of(s), &y, two ? &z : nullptr, nullptr, nullptr),
                  CURED_SUCCESS)
            << what << ": " << message();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const auto h = out.host(rows * 8), h2 = second.host(rows * 8);
        const auto want = expected_statistic(s, v, cols);
        for (int r = 0; r < rows; ++r) {
          expect_near(element(o, h.data(), r), want.first, what);
          if (two) expect_near(element(o, h2.data(), r), want.second, what + " (second)");
        }
        ++called;
      }
      if (cured_segment_statistic_dtype(s, t, &o) == CURED_SUCCESS) {
        device_bytes out(2 * 8), second(2 * 8);
        const cured_array x = array_of(in.p, t, {10}, {1});
        const cured_array y = array_of(out.p, o, {2}, {1}), z = array_of(second.p, o, {2}, {1});
        ASSERT_EQ(cured_segment_statistic(s, &x, static_cast<const std::int64_t*>(off.p), 2, param_of(s), &y,
                                          two ? &z : nullptr, nullptr, 1, nullptr, nullptr),
                  CURED_SUCCESS)
            << "segmented " << what << ": " << message();
        const auto h = out.host(2 * 8), h2 = second.host(2 * 8);
        for (int k = 0; k < 2; ++k) {
          const auto want = expected_statistic(s, v, k == 0 ? 4 : 6);
          expect_near(element(o, h.data(), k), want.first, "segmented " + what);
          if (two) expect_near(element(o, h2.data(), k), want.second, "segmented " + what + " (second)");
        }
        ++called;
      }
    }
  }
  EXPECT_GT(called, 50);
}

}  // namespace
