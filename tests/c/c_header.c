/* cured_c.h compiled as C (C11): the interface is usable from C, not only from C++. */
#include "cured_c.h"

#include <stddef.h>

int cured_c_header_as_c(void) {
  cured_array a = {NULL, CURED_FLOAT32, 1, {0}, {1}};
  int32_t out = -1;
  if (cured_result_dtype(CURED_SUM, a.dtype, -1, &out) != CURED_SUCCESS) return 0;
  return out == CURED_FLOAT32 && cured_abi_version() == CURED_C_ABI_VERSION && cured_version()[0] != '\0' &&
         cured_status_string(CURED_SUCCESS)[0] != '\0';
}
