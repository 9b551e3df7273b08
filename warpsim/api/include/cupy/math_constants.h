// warpsim's cupy/math_constants.h: the CUDART_* constants, from CUDA's own math_constants.h.
#pragma once
#include <math_constants.h>
