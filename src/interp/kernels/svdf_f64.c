/* svdf_f64.c — the double build of svdf.c for --precision fp64 (interp/fp64.h). */
#include "interp/fp64.h"
#include "svdf.c"
