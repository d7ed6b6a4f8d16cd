// The C interface (c/include/cured_c.h): its type rules and argument checks without a GPU, and
// its reductions, segments, workspaces and errors on one.

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cured_c.h"
#include "tests/c/c_arrays.hpp"
#include "tests/support/gpu.cuh"

extern "C" int cured_c_header_as_c(void);

namespace {

using cured::test::array_of;

std::string message() { return cured_last_error(); }

std::int32_t result(std::int32_t op, std::int32_t in, std::int32_t requested = -1) {
  std::int32_t out = -1;
  return cured_result_dtype(op, in, requested, &out) == CURED_SUCCESS ? out : -100;
}

TEST(CApi, CompilesAsCAndReportsItsVersion) {
  EXPECT_EQ(cured_c_header_as_c(), 1);
  EXPECT_EQ(cured_abi_version(), CURED_C_ABI_VERSION);
}

TEST(CApi, NamesItsVersionAndStatuses) {
  const std::string version = cured_version();
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << version;
  EXPECT_EQ(std::string(cured_status_string(CURED_SUCCESS)), "CURED_SUCCESS: success");
  EXPECT_EQ(std::string(cured_status_string(CURED_ERROR_INVALID)), "CURED_ERROR_INVALID: invalid argument");
  for (const cured_status s : {CURED_ERROR_UNSUPPORTED, CURED_ERROR_CUDA, CURED_ERROR_INTERNAL})
    EXPECT_EQ(std::string(cured_status_string(s)).rfind("CURED_ERROR_", 0), 0u) << s;
  EXPECT_EQ(std::string(cured_status_string(static_cast<cured_status>(99))), "unknown status");
}

TEST(CApi, ResultTypesFollowTheSumRules) {
  for (std::int32_t t : {CURED_BOOL, CURED_INT8, CURED_UINT8, CURED_INT16, CURED_INT32, CURED_INT64})
    EXPECT_EQ(result(CURED_SUM, t), CURED_INT64) << t;
  for (std::int32_t t : {CURED_FLOAT16, CURED_BFLOAT16, CURED_FLOAT32, CURED_FLOAT64}) EXPECT_EQ(result(CURED_SUM, t), t);
  EXPECT_EQ(result(CURED_SUM, CURED_FLOAT16, CURED_FLOAT32), CURED_FLOAT32);
  EXPECT_EQ(result(CURED_SUM, CURED_FLOAT32, CURED_FLOAT64), CURED_FLOAT64);
  EXPECT_EQ(result(CURED_MIN, CURED_INT16), CURED_INT16);
  EXPECT_EQ(result(CURED_ARGMAX, CURED_FLOAT16), CURED_INT64);
  EXPECT_EQ(result(CURED_EXACT_SUM, CURED_BFLOAT16), CURED_FLOAT32);
  EXPECT_EQ(result(CURED_EXACT_SUM, CURED_FLOAT64), CURED_FLOAT64);
  std::int32_t out = 0;
  EXPECT_EQ(cured_result_dtype(CURED_SUM, CURED_FLOAT32, CURED_FLOAT16, &out), CURED_ERROR_UNSUPPORTED);
  EXPECT_NE(message().find("float32 as float16"), std::string::npos) << message();
  EXPECT_EQ(cured_result_dtype(CURED_EXACT_SUM, CURED_INT32, -1, &out), CURED_ERROR_UNSUPPORTED);
  EXPECT_EQ(cured_result_dtype(CURED_SUM, 42, -1, &out), CURED_ERROR_UNSUPPORTED);
  EXPECT_EQ(cured_result_dtype(17, CURED_FLOAT32, -1, &out), CURED_ERROR_INVALID);
  EXPECT_EQ(cured_result_dtype(CURED_SUM, CURED_FLOAT32, -1, nullptr), CURED_ERROR_INVALID);
  EXPECT_EQ(cured_result_dtype(CURED_SUM, CURED_FLOAT32, -1, &out), CURED_SUCCESS);
  EXPECT_EQ(message(), "");
}

std::int32_t statistic_type(std::int32_t statistic, std::int32_t in) {
  std::int32_t out = -1;
  return cured_statistic_dtype(statistic, in, &out) == CURED_SUCCESS ? out : -100;
}

TEST(CApi, StatisticTypes) {
  for (std::int32_t t : {CURED_FLOAT16, CURED_BFLOAT16, CURED_FLOAT32})
    for (std::int32_t s : {CURED_MEAN, CURED_VAR, CURED_STD, CURED_VAR_MEAN, CURED_STD_MEAN, CURED_VECTOR_NORM, CURED_LOGSUMEXP})
      EXPECT_EQ(statistic_type(s, t), CURED_FLOAT32) << s << " " << t;
  EXPECT_EQ(statistic_type(CURED_STD, CURED_FLOAT64), CURED_FLOAT64);
  for (std::int32_t t = 0; t < CURED_DTYPE_COUNT; ++t) {
    EXPECT_EQ(statistic_type(CURED_AMINMAX, t), t);
    EXPECT_EQ(statistic_type(CURED_COUNT_NONZERO, t), CURED_INT64);
    EXPECT_EQ(statistic_type(CURED_ANY, t), CURED_BOOL);
    EXPECT_EQ(statistic_type(CURED_ALL, t), CURED_BOOL);
  }
  std::int32_t out = 0;
  EXPECT_EQ(cured_statistic_dtype(CURED_MEAN, CURED_INT32, &out), CURED_ERROR_UNSUPPORTED);
  EXPECT_NE(message().find("mean takes floating elements, not int32"), std::string::npos) << message();
  EXPECT_EQ(cured_statistic_dtype(CURED_STATISTIC_COUNT, CURED_FLOAT32, &out), CURED_ERROR_INVALID);
  EXPECT_EQ(cured_statistic_dtype(CURED_MEAN, CURED_FLOAT32, nullptr), CURED_ERROR_INVALID);
}

TEST(CApi, StatisticsRejectBadArgumentsBeforeAnyCudaCall) {
  alignas(16) static float host[16];
  const std::int32_t dim = 0;
  const cured_array in = array_of(host, CURED_FLOAT32, {16}, {1});
  cured_array out = array_of(host + 8, CURED_FLOAT32, {}, {});
  const auto status = [&](std::int32_t s, const cured_array* o, const cured_array* second, double param = 1) {
    return cured_statistic_reduce(s, &in, &dim, 1, param, o, second, nullptr, nullptr);
  };
  EXPECT_EQ(status(CURED_VAR_MEAN, &out, nullptr), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("var_mean needs a second output"), std::string::npos) << message();
  EXPECT_EQ(status(CURED_LOGSUMEXP, &out, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("logsumexp has one output"), std::string::npos) << message();
  cured_array wrong = out;
  wrong.dtype = CURED_FLOAT64;
  EXPECT_EQ(status(CURED_STD_MEAN, &out, &wrong), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the second output is float64, not float32"), std::string::npos) << message();
  EXPECT_EQ(status(CURED_COUNT_NONZERO, &out, nullptr), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the output is float32, not int64"), std::string::npos) << message();
  EXPECT_EQ(status(CURED_MEAN, nullptr, nullptr), CURED_ERROR_INVALID);
  const cured_array ints = array_of(host, CURED_INT32, {16}, {1});
  EXPECT_EQ(cured_statistic_reduce(CURED_VECTOR_NORM, &ints, &dim, 1, 2, &out, nullptr, nullptr, nullptr),
            CURED_ERROR_UNSUPPORTED);
  cured_array matrix = array_of(host, CURED_FLOAT32, {4, 4}, {4, 1});
  cured_array rows = array_of(host, CURED_FLOAT32, {1}, {1});
  EXPECT_EQ(cured_segment_statistic(CURED_MEAN, &matrix, nullptr, 1, 0, &rows, nullptr, nullptr, 1, nullptr, nullptr),
            CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the values have 2 axes"), std::string::npos) << message();
}

TEST(CApi, RejectsBadArgumentsBeforeAnyCudaCall) {
  alignas(16) static float host[16];
  const std::int32_t dim = 0;
  cured_array in = array_of(host, CURED_FLOAT32, {16}, {1});
  cured_array out = array_of(host + 8, CURED_FLOAT32, {}, {});
  const auto status = [&](const cured_array* i, const cured_array* o, std::int32_t op = CURED_SUM,
                          const cured_array* values = nullptr, std::int32_t naxes = 1) {
    return cured_reduce(op, i, &dim, naxes, o, values, nullptr, nullptr);
  };
  EXPECT_EQ(status(nullptr, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the input is null"), std::string::npos) << message();
  cured_array bad = in;
  bad.rank = 9;
  EXPECT_EQ(status(&bad, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("9 axes"), std::string::npos) << message();
  bad = in;
  bad.dtype = 42;
  EXPECT_EQ(status(&bad, &out), CURED_ERROR_UNSUPPORTED);
  bad = in;
  bad.data = reinterpret_cast<char*>(host) + 2;
  EXPECT_EQ(status(&bad, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("not a multiple of its element size"), std::string::npos) << message();
  cured_array wrong = out;
  wrong.dtype = CURED_INT64;
  EXPECT_EQ(status(&in, &wrong, CURED_MIN), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the output is int64, not float32"), std::string::npos) << message();
  EXPECT_EQ(status(&in, &out, CURED_SUM, &in), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("only to argmin and argmax"), std::string::npos) << message();
  EXPECT_EQ(status(&in, &out, CURED_SUM, nullptr, 9), CURED_ERROR_INVALID);
  EXPECT_EQ(cured_reduce(CURED_SUM, &in, nullptr, 1, &out, nullptr, nullptr, nullptr), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("axes is null"), std::string::npos) << message();

  cured_array matrix = array_of(host, CURED_FLOAT32, {4, 4}, {4, 1});
  cured_array rows = array_of(host, CURED_FLOAT32, {1}, {1});
  EXPECT_EQ(cured_segment_reduce(CURED_SUM, &matrix, nullptr, 1, &rows, nullptr, 1, nullptr, nullptr),
            CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the values have 2 axes"), std::string::npos) << message();
  cured_array strided = array_of(host, CURED_FLOAT32, {4}, {2});
  EXPECT_EQ(cured_segment_reduce(CURED_SUM, &strided, nullptr, 1, &rows, nullptr, 1, nullptr, nullptr),
            CURED_ERROR_INVALID);
  EXPECT_NE(message().find("not contiguous"), std::string::npos) << message();
  EXPECT_EQ(cured_workspace_create(0, nullptr), CURED_ERROR_INVALID);
}

TEST(CApi, ExactDotRejectsBadArgumentsBeforeAnyCudaCall) {
  alignas(16) static float host[16];
  alignas(16) static double wide[16];
  const cured_array x = array_of(host, CURED_FLOAT32, {2, 4}, {4, 1});
  const cured_array out = array_of(host + 12, CURED_FLOAT32, {}, {});
  const auto status = [&](const cured_array* a, const cured_array* b, const cured_array* o) {
    return cured_exact_dot(a, b, o, nullptr, nullptr);
  };
  EXPECT_EQ(status(nullptr, &x, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("x is null"), std::string::npos) << message();
  EXPECT_EQ(status(&x, &x, nullptr), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the output is null"), std::string::npos) << message();
  const cured_array y64 = array_of(wide, CURED_FLOAT64, {2, 4}, {4, 1});
  EXPECT_EQ(status(&x, &y64, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("x is float32, y float64"), std::string::npos) << message();
  const cured_array ints = array_of(host, CURED_INT32, {2, 4}, {4, 1});
  const cured_array int_out = array_of(host + 12, CURED_INT64, {}, {});
  EXPECT_EQ(status(&ints, &ints, &int_out), CURED_ERROR_UNSUPPORTED);
  EXPECT_NE(message().find("exact_dot takes floating elements, not int32"), std::string::npos) << message();
  const cured_array other_shape = array_of(host, CURED_FLOAT32, {4, 2}, {2, 1});
  EXPECT_EQ(status(&x, &other_shape, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("differ in shape"), std::string::npos) << message();
  const cured_array strided = array_of(host, CURED_FLOAT32, {2, 4}, {8, 1});
  EXPECT_EQ(status(&x, &strided, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("y is not contiguous (axis 0's stride is 8, not 4)"), std::string::npos) << message();
  const cured_array two = array_of(host + 12, CURED_FLOAT32, {2}, {1});
  EXPECT_EQ(status(&x, &x, &two), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the output has 2 elements, not 1"), std::string::npos) << message();
  const cured_array out64 = array_of(wide, CURED_FLOAT64, {1}, {1});
  EXPECT_EQ(status(&x, &x, &out64), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("the output is float64, not float32"), std::string::npos) << message();
  cured_array negative = x;
  negative.extents[0] = -2;
  EXPECT_EQ(status(&negative, &negative, &out), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("negative extent"), std::string::npos) << message();
}

class CApiGpu : public ::testing::Test {
protected:
  void SetUp() override {
    if (!cured::test::no_gpu_reason().empty()) GTEST_SKIP() << cured::test::no_gpu_reason();
  }
};

template <class T>
T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), h.size() * sizeof(T) + 16), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

TEST_F(CApiGpu, ReducesAlongAxesOnAStream) {
  // 3 x 1000 int32: x[r][c] = (c % 7) - 3 + r.
  const int R = 3, C = 1000;
  std::vector<std::int32_t> h(R * C);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) h[r * C + c] = c % 7 - 3 + r;
  std::int32_t* x = to_device(h);
  std::vector<std::int64_t> zeros(C, 0);
  std::int64_t* sums = to_device(zeros);
  std::int64_t* idx = to_device(zeros);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  const cured_array in = array_of(x, CURED_INT32, {R, C}, {C, 1});
  const std::int32_t along_rows = 1, along_cols = -2;
  const cured_array row_sums = array_of(sums, CURED_INT64, {R}, {1});
  ASSERT_EQ(cured_reduce(CURED_SUM, &in, &along_rows, 1, &row_sums, nullptr, s, nullptr), CURED_SUCCESS) << message();
  const cured_array col_arg = array_of(idx, CURED_INT64, {1, C}, {C, 1});  // keepdim
  ASSERT_EQ(cured_reduce(CURED_ARGMAX, &in, &along_cols, 1, &col_arg, nullptr, s, nullptr), CURED_SUCCESS) << message();
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  const auto got_sums = to_host(sums, R);
  for (int r = 0; r < R; ++r) {
    std::int64_t want = 0;
    for (int c = 0; c < C; ++c) want += h[r * C + c];
    EXPECT_EQ(got_sums[r], want) << r;
  }
  const auto got_idx = to_host(idx, C);
  for (int c = 0; c < C; ++c) EXPECT_EQ(got_idx[c], R - 1) << c;

  cured_workspace ws = nullptr;
  ASSERT_EQ(cured_workspace_create(0, &ws), CURED_SUCCESS) << message();
  const cured_array total = array_of(sums, CURED_INT64, {}, {});
  ASSERT_EQ(cured_reduce(CURED_SUM, &in, nullptr, 0, &row_sums, nullptr, s, ws), CURED_ERROR_INVALID);  // wrong shape
  const std::int32_t both[] = {0, 1};
  ASSERT_EQ(cured_reduce(CURED_SUM, &in, both, 2, &total, nullptr, s, ws), CURED_SUCCESS) << message();
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  std::int64_t want = 0;
  for (const auto v : h) want += v;
  EXPECT_EQ(to_host(sums, 1)[0], want);
  EXPECT_EQ(cured_workspace_destroy(ws), CURED_SUCCESS);
  cudaStreamDestroy(s);
  cudaFree(x);
  cudaFree(sums);
  cudaFree(idx);
}

/// cured_exact_dot of n elements x[i] = xs(i), y[i] = ys(i) of type T (laid out as rows x n / rows),
/// read back from its Out result.
template <class T, class Out, class X, class Y>
Out exact_dot_of(std::int32_t dtype, std::int32_t out_dtype, int n, int rows, X xs, Y ys, cured_workspace ws) {
  std::vector<T> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = T(xs(i));
    hy[i] = T(ys(i));
  }
  T* x = to_device(hx);
  T* y = to_device(hy);
  Out* out = to_device(std::vector<Out>(1, Out(-7)));
  const cured_array ax = array_of(x, dtype, {rows, n / rows}, {n / rows, 1});
  const cured_array ay = array_of(y, dtype, {rows, n / rows}, {n / rows, 1});
  const cured_array ao = array_of(out, out_dtype, {1}, {1});
  EXPECT_EQ(cured_exact_dot(&ax, &ay, &ao, nullptr, ws), CURED_SUCCESS) << message();
  const Out got = to_host(out, 1)[0];
  cudaFree(x);
  cudaFree(y);
  cudaFree(out);
  return got;
}

TEST_F(CApiGpu, ExactDotRoundsOnce) {
  // 2^24 + 1 - 2^24: a float sum in this order loses the 1, the exact one keeps it.
  const auto cancel = [](int i) { return i == 0 ? 16777216.0 : i == 1 ? 1.0 : i == 2 ? -16777216.0 : 0.0; };
  const auto one = [](int) { return 1.0; };
  EXPECT_EQ((exact_dot_of<float, float>(CURED_FLOAT32, CURED_FLOAT32, 4, 2, cancel, one, nullptr)), 1.0f);
  const auto cancel64 = [](int i) { return i == 0 ? 1e300 : i == 1 ? 3.0 : i == 2 ? -1e300 : 0.0; };
  const auto tiny = [](int i) { return i == 1 ? 1e-300 : 1.0; };
  EXPECT_EQ((exact_dot_of<double, double>(CURED_FLOAT64, CURED_FLOAT64, 4, 1, cancel64, tiny, nullptr)), 3.0 * tiny(1));
  // Small integers: every product and the sum are exact, the same for every type.
  const int n = 3000;
  const auto xs = [](int i) { return double(i % 7 - 3); };
  const auto ys = [](int i) { return double(i % 5 - 2); };
  double want = 0;
  for (int i = 0; i < n; ++i) want += xs(i) * ys(i);
  cured_workspace ws = nullptr;
  ASSERT_EQ(cured_workspace_create(0, &ws), CURED_SUCCESS) << message();
  EXPECT_EQ((exact_dot_of<__half, float>(CURED_FLOAT16, CURED_FLOAT32, n, 3, xs, ys, ws)), float(want));
  EXPECT_EQ((exact_dot_of<__nv_bfloat16, float>(CURED_BFLOAT16, CURED_FLOAT32, n, 1, xs, ys, nullptr)), float(want));
  EXPECT_EQ((exact_dot_of<float, float>(CURED_FLOAT32, CURED_FLOAT32, n, 10, xs, ys, ws)), float(want));
  EXPECT_EQ((exact_dot_of<double, double>(CURED_FLOAT64, CURED_FLOAT64, n, 1, xs, ys, nullptr)), want);
  EXPECT_EQ((exact_dot_of<float, float>(CURED_FLOAT32, CURED_FLOAT32, 0, 1, xs, ys, nullptr)), 0.0f);
  EXPECT_EQ(cured_workspace_destroy(ws), CURED_SUCCESS);
}

TEST_F(CApiGpu, RunsOnTheInputsDeviceAndRestoresTheCallers) {
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  if (devices < 2) GTEST_SKIP() << "needs two GPUs, found " << devices;
  // The input on device 1, the caller's current device 0: each call runs on device 1 (its
  // default workspace, or one made there) and leaves device 0 current.
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  const std::vector<float> h(1000, 1.0f);
  float* x = to_device(h);
  float* out = to_device(std::vector<float>(4, 0.0f));
  std::int64_t* offsets = to_device(std::vector<std::int64_t>{0, 400, 1000});
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cured_workspace ws = nullptr;
  ASSERT_EQ(cured_workspace_create(1, &ws), CURED_SUCCESS) << message();
  const auto current = [] {
    int d = -1;
    EXPECT_EQ(cudaGetDevice(&d), cudaSuccess);
    return d;
  };
  EXPECT_EQ(current(), 0) << "after cured_workspace_create(1)";
  const cured_array in = array_of(x, CURED_FLOAT32, {1000}, {1});
  const cured_array total = array_of(out, CURED_FLOAT32, {}, {});
  const cured_array mean = array_of(out + 1, CURED_FLOAT32, {}, {});
  const cured_array per_segment = array_of(out + 2, CURED_FLOAT32, {2}, {1});
  const std::int32_t axis = 0;
  ASSERT_EQ(cured_reduce(CURED_SUM, &in, &axis, 1, &total, nullptr, nullptr, nullptr), CURED_SUCCESS) << message();
  EXPECT_EQ(current(), 0) << "after cured_reduce";
  ASSERT_EQ(cured_statistic_reduce(CURED_MEAN, &in, &axis, 1, 0.0, &mean, nullptr, nullptr, ws), CURED_SUCCESS)
      << message();
  EXPECT_EQ(current(), 0) << "after cured_statistic_reduce with a workspace on device 1";
  ASSERT_EQ(cured_segment_reduce(CURED_MAX, &in, offsets, 2, &per_segment, nullptr, 1, nullptr, nullptr), CURED_SUCCESS)
      << message();
  EXPECT_EQ(current(), 0) << "after cured_segment_reduce";
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(out, 4), (std::vector<float>{1000.0f, 1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(cured_workspace_destroy(ws), CURED_SUCCESS);
  cudaFree(x);
  cudaFree(out);
  cudaFree(offsets);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST_F(CApiGpu, SegmentsCheckTheirOffsets) {
  std::vector<float> h(100);
  for (int i = 0; i < 100; ++i) h[i] = float(i % 5);
  float* x = to_device(h);
  std::vector<std::int64_t> offsets = {0, 10, 10, 55, 100};
  std::int64_t* off = to_device(offsets);
  float* out = to_device(std::vector<float>(4, -1.f));
  const cured_array values = array_of(x, CURED_FLOAT32, {100}, {1});
  const cured_array sums = array_of(out, CURED_FLOAT32, {4}, {1});
  ASSERT_EQ(cured_segment_reduce(CURED_SUM, &values, off, 4, &sums, nullptr, 1, nullptr, nullptr), CURED_SUCCESS)
      << message();
  const auto got = to_host(out, 4);
  for (int s = 0; s < 4; ++s) {
    float want = 0;
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i) want += h[i];
    EXPECT_EQ(got[s], want) << s;
  }
  std::vector<std::int64_t> bad = {0, 50, 20, 55, 100};
  ASSERT_EQ(cudaMemcpy(off, bad.data(), bad.size() * 8, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cured_segment_reduce(CURED_SUM, &values, off, 4, &sums, nullptr, 1, nullptr, nullptr), CURED_ERROR_INVALID);
  EXPECT_NE(message().find("offsets"), std::string::npos) << message();
  // Unchecked: the status word says why.
  unsigned* status = nullptr;
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&status), sizeof(unsigned)), cudaSuccess);
  *status = 0;
  EXPECT_EQ(cured_segment_reduce(CURED_MAX, &values, off, 4, &sums, status, 0, nullptr, nullptr), CURED_SUCCESS);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_NE(*status, 0u);
  const cured_array ints = array_of(x, CURED_INT8, {100}, {1});
  const cured_array int_out = array_of(out, CURED_INT8, {4}, {1});
  EXPECT_EQ(cured_segment_reduce(CURED_MAX, &ints, off, 4, &int_out, nullptr, 1, nullptr, nullptr),
            CURED_ERROR_UNSUPPORTED);
  cudaFree(status);
  cudaFree(x);
  cudaFree(off);
  cudaFree(out);
}

TEST_F(CApiGpu, StatisticsAlongAxesAndPerSegment) {
  // 3 x 1000 float: x[r][c] = (c % 7) - 3 + 10 r, row 0 with a zero in every seven.
  const int R = 3, C = 1000;
  std::vector<float> h(R * C);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) h[r * C + c] = float(c % 7 - 3 + 10 * r);
  float* x = to_device(h);
  float* a = to_device(std::vector<float>(C, -1.f));
  float* b = to_device(std::vector<float>(C, -1.f));
  std::int64_t* counts = to_device(std::vector<std::int64_t>(R, -1));
  std::uint8_t* truth = to_device(std::vector<std::uint8_t>(R, 7));
  const cured_array in = array_of(x, CURED_FLOAT32, {R, C}, {C, 1});
  const std::int32_t along = 1;
  const cured_array va = array_of(a, CURED_FLOAT32, {R}, {1}), vb = array_of(b, CURED_FLOAT32, {R}, {1});
  ASSERT_EQ(cured_statistic_reduce(CURED_VAR_MEAN, &in, &along, 1, 0.0, &va, &vb, nullptr, nullptr), CURED_SUCCESS)
      << message();
  auto var = to_host(a, R), mean = to_host(b, R);
  for (int r = 0; r < R; ++r) {
    double s = 0, s2 = 0;
    for (int c = 0; c < C; ++c) s += h[r * C + c];
    const double m = s / C;
    for (int c = 0; c < C; ++c) s2 += (h[r * C + c] - m) * (h[r * C + c] - m);
    EXPECT_NEAR(mean[r], m, 1e-5) << r;
    EXPECT_NEAR(var[r], s2 / C, 1e-4) << r;  // ddof 0
  }
  ASSERT_EQ(cured_statistic_reduce(CURED_AMINMAX, &in, &along, 1, 0.0, &va, &vb, nullptr, nullptr), CURED_SUCCESS);
  const auto lo = to_host(a, R), hi = to_host(b, R);
  for (int r = 0; r < R; ++r) {
    EXPECT_EQ(lo[r], float(10 * r - 3));
    EXPECT_EQ(hi[r], float(10 * r + 3));
  }
  const cured_array nz = array_of(counts, CURED_INT64, {R}, {1});
  ASSERT_EQ(cured_statistic_reduce(CURED_COUNT_NONZERO, &in, &along, 1, 0.0, &nz, nullptr, nullptr, nullptr),
            CURED_SUCCESS);
  const auto got = to_host(counts, R);
  for (int r = 0; r < R; ++r) {
    std::int64_t want = 0;
    for (int c = 0; c < C; ++c) want += h[r * C + c] != 0;
    EXPECT_EQ(got[r], want) << r;
  }
  const cured_array all = array_of(truth, CURED_BOOL, {R}, {1});
  ASSERT_EQ(cured_statistic_reduce(CURED_ALL, &in, &along, 1, 0.0, &all, nullptr, nullptr, nullptr), CURED_SUCCESS);
  const auto every = to_host(truth, R);
  for (int r = 0; r < R; ++r)
    EXPECT_EQ(every[r], r == 0 ? 0 : 1) << r;
  const cured_array one = array_of(truth, CURED_BOOL, {}, {});
  const std::int32_t both[] = {0, 1};
  ASSERT_EQ(cured_statistic_reduce(CURED_ANY, &in, both, 2, 0.0, &one, nullptr, nullptr, nullptr), CURED_SUCCESS);
  EXPECT_EQ(to_host(truth, 1)[0], 1);
  ASSERT_EQ(cured_statistic_reduce(CURED_VECTOR_NORM, &in, &along, 1, 3.0, &va, nullptr, nullptr, nullptr),
            CURED_ERROR_INVALID);
  EXPECT_NE(message().find("1, 2 or inf"), std::string::npos) << message();
  ASSERT_EQ(cured_statistic_reduce(CURED_VAR, &in, &along, 1, -1.0, &va, nullptr, nullptr, nullptr),
            CURED_ERROR_INVALID);
  EXPECT_NE(message().find("ddof"), std::string::npos) << message();

  // Per segment: the logsumexp of [0, 10), of nothing, and of [10, 3000).
  std::int64_t* off = to_device(std::vector<std::int64_t>{0, 10, 10, 3000});
  const cured_array values = array_of(x, CURED_FLOAT32, {R * C}, {1});
  const cured_array lse = array_of(a, CURED_FLOAT32, {3}, {1});
  ASSERT_EQ(cured_segment_statistic(CURED_LOGSUMEXP, &values, off, 3, 0.0, &lse, nullptr, nullptr, 1, nullptr,
                                    nullptr),
            CURED_SUCCESS)
      << message();
  const auto l = to_host(a, 3);
  const auto want_lse = [&](int from, int to) {
    double m = -INFINITY, s = 0;
    for (int i = from; i < to; ++i) m = std::max(m, double(h[i]));
    for (int i = from; i < to; ++i) s += std::exp(h[i] - m);
    return m + std::log(s);
  };
  EXPECT_NEAR(l[0], want_lse(0, 10), 1e-5);
  EXPECT_EQ(l[1], -INFINITY);
  EXPECT_NEAR(l[2], want_lse(10, R * C), 1e-4);
  const cured_array sd = array_of(a, CURED_FLOAT32, {3}, {1}), sm = array_of(b, CURED_FLOAT32, {3}, {1});
  ASSERT_EQ(cured_segment_statistic(CURED_STD_MEAN, &values, off, 3, 1.0, &sd, &sm, nullptr, 1, nullptr, nullptr),
            CURED_SUCCESS)
      << message();
  const auto seg_mean = to_host(b, 3);
  double s = 0;
  for (int i = 0; i < 10; ++i) s += h[i];
  EXPECT_NEAR(seg_mean[0], s / 10, 1e-6);
  EXPECT_TRUE(std::isnan(seg_mean[1]));
  std::vector<std::int64_t> bad = {0, 50, 20, 3000};
  ASSERT_EQ(cudaMemcpy(off, bad.data(), bad.size() * 8, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cured_segment_statistic(CURED_ANY, &values, off, 3, 0.0, &all, nullptr, nullptr, 1, nullptr, nullptr),
            CURED_ERROR_INVALID);
  EXPECT_NE(message().find("offset"), std::string::npos) << message();
  for (void* p : {static_cast<void*>(x), static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(counts),
                  static_cast<void*>(truth), static_cast<void*>(off)})
    cudaFree(p);
}

}  // namespace
