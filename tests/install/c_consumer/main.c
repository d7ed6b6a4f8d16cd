/* A C program that uses the installed libcured_c, found through pkg-config or through
 * find_package(cured COMPONENTS c) and cured::cured_c: it compiles as C, links, loads the
 * library and calls what needs no GPU. tests/install/install_test.cmake (MODE c) drives it. */
#include <cured_c.h>

#include <stdio.h>

int main(void) {
  int32_t out = -1;
  if (cured_abi_version() != CURED_C_ABI_VERSION) {
    printf("c consumer: the library's ABI is %d, the header's %d\n", (int)cured_abi_version(), CURED_C_ABI_VERSION);
    return 1;
  }
  if (cured_result_dtype(CURED_SUM, CURED_INT32, -1, &out) != CURED_SUCCESS || out != CURED_INT64) {
    printf("c consumer: cured_result_dtype: %s\n", cured_last_error());
    return 1;
  }
  if (cured_result_dtype(CURED_EXACT_SUM, CURED_INT32, -1, &out) != CURED_ERROR_UNSUPPORTED) {
    printf("c consumer: the exact sum of int32 was not refused\n");
    return 1;
  }
  printf("c consumer: libcured_c %s, ABI %d; %s\n", cured_version(), (int)cured_abi_version(),
         cured_status_string(CURED_ERROR_UNSUPPORTED));
  return 0;
}
