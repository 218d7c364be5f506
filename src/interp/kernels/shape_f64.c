/* shape_f64.c — the double build of shape.c for --precision fp64 (interp/fp64.h). */
#include "interp/fp64.h"
#include "shape.c"
