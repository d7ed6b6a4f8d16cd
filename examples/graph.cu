// CUDA graphs: capture asynchronous reductions once, replay them on new data. Needs a CUDA
// device; without one it says so and exits with 77, which ctest reports as skipped.

#include <cured/cured.cuh>

#include "example_support.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace {

/// cured_example::expect for one replay: "MISMATCH <what>, replay <replay>: got ..., want ...".
void expect(bool ok, const char* what, int replay, double got, double want) {
  const std::string name = std::string(what) + ", replay " + std::to_string(replay);
  cured_example::expect(ok, name.c_str(), got, want);
}

void run() {
  const std::int64_t n = 3'000'029;
  float* d_x = nullptr;
  float* d_sum = nullptr;
  cured::key_value<float>* d_argmax = nullptr;
  CURED_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CURED_CHECK(cudaMalloc(&d_sum, sizeof(float)));
  CURED_CHECK(cudaMalloc(&d_argmax, sizeof(cured::key_value<float>)));

  // docs:begin graph-capture
  cured::workspace ws;  // made before the capture: making one allocates
  cudaStream_t stream;
  CURED_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cudaGraph_t graph;
  CURED_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  cured::sum_async(d_x, n, d_sum, ws, stream);  // recorded, not run
  cured::argmax_async(d_x, n, d_argmax, ws, stream);
  CURED_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CURED_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // docs:end graph-capture

  std::vector<float> h_x(n);
  for (int replay = 0; replay < 3; ++replay) {
    // New values each time: small integers, so every float sum of them is exact.
    for (std::int64_t i = 0; i < n; ++i) h_x[i] = float((i + replay) % 5);  // 0 .. 4
    const std::int64_t peak = 1000 * (replay + 1);
    h_x[peak] = 100.0f;
    double want = 0;
    for (float x : h_x) want += x;

    // docs:begin graph-replay
    // The graph reads d_x when it runs: fill it, replay, read the results.
    CURED_CHECK(cudaMemcpyAsync(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CURED_CHECK(cudaGraphLaunch(exec, stream));
    float sum = 0;
    cured::key_value<float> argmax{};
    CURED_CHECK(cudaMemcpyAsync(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost, stream));
    CURED_CHECK(cudaMemcpyAsync(&argmax, d_argmax, sizeof argmax, cudaMemcpyDeviceToHost, stream));
    CURED_CHECK(cudaStreamSynchronize(stream));
    // docs:end graph-replay

    expect(sum == float(want), "sum", replay, sum, want);
    expect(argmax.index == peak, "argmax index", replay, double(argmax.index), double(peak));
    expect(argmax.value == 100.0f, "argmax value", replay, argmax.value, 100.0);
  }

  CURED_CHECK(cudaGraphExecDestroy(exec));
  CURED_CHECK(cudaGraphDestroy(graph));
  CURED_CHECK(cudaStreamDestroy(stream));
  CURED_CHECK(cudaFree(d_x));
  CURED_CHECK(cudaFree(d_sum));
  CURED_CHECK(cudaFree(d_argmax));
}

}  // namespace

int main() { return cured_example::run_example("graph", run); }
