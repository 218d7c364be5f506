/* detection_f64.c — the double build of detection.c for --precision fp64 (interp/fp64.h). */
#include "model/flexbuf.h"
#include "interp/fp64.h"
#include "detection.c"
