/* mediapipe_f64.c — the double build of mediapipe.c for --precision fp64 (interp/fp64.h). */
#include "model/flexbuf.h"
#include "interp/fp64.h"
#include "mediapipe.c"
