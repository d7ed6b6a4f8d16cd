// The C interface (c/include/cured_c.h): its type rules and argument checks without a GPU, and
// its reductions, segments, workspaces and errors on one.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cured_c.h"
#include "tests/support/gpu.cuh"

extern "C" int cured_c_header_as_c(void);

namespace {

cured_array array_of(void* data, std::int32_t dtype, std::vector<std::int64_t> extents,
                     std::vector<std::int64_t> strides) {
  cured_array a{};
  a.data = data;
  a.dtype = dtype;
  a.rank = std::int32_t(extents.size());
  for (std::size_t k = 0; k < extents.size(); ++k) {
    a.extents[k] = extents[k];
    a.strides[k] = strides[k];
  }
  return a;
}

std::string message() { return cured_last_error(); }

std::int32_t result(std::int32_t op, std::int32_t in, std::int32_t requested = -1) {
  std::int32_t out = -1;
  return cured_result_dtype(op, in, requested, &out) == CURED_SUCCESS ? out : -100;
}

TEST(CApi, CompilesAsCAndReportsItsVersion) {
  EXPECT_EQ(cured_c_header_as_c(), 1);
  EXPECT_EQ(cured_abi_version(), CURED_C_ABI_VERSION);
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

}  // namespace
