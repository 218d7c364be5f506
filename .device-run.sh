#!/usr/bin/env bash
# session-5 device run 1 (not committed): sweep cases + fixed twins, then GPU bisections
set -u
O=${OUT:-$PWD/device-out}; mkdir -p "$O"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
el "sweep"
JOBS=12 TEXT=0 RUNS=1 TIMEOUT=60 OUT=$O/sweep timeout -k 5 170 bash runtime/litert/device.sh .device-sweep > "$O/sweep.log" 2>&1
el "sweep rc=$?"
mkdir -p .device-b2 && cp .device-sweep/*.xz .device-b2/ && cp .device-sweep/*.deb .device-b2/ 2>/dev/null; cp -r .device-bisect/models .device-b2/
el "bisect native fp32"
BISECT=1 RUNTIMES=native PRECISIONS=fp32 TIMEOUT=60 OUT=$O/bisect-native timeout -k 5 250 bash runtime/litert/device.sh .device-b2 > "$O/bisect-native.log" 2>&1
el "bisect native rc=$?"
W=/tmp/gpuclean-litert
RUNTIMES=js PRECISIONS=fp16 TIMEOUT=60 PACK=.device-b2 OUT=$O/bisect-js16 timeout -k 5 100 bash tools/gpu_bisect_device.sh $W/models/resnet18__final__twin.tflite > "$O/bisect-js16.log" 2>&1
el "bisect js fp16 rc=$?"
RUNTIMES=js PRECISIONS=fp32 TIMEOUT=60 PACK=.device-b2 OUT=$O/bisect-js32 timeout -k 5 120 bash tools/gpu_bisect_device.sh $W/models/retinaface.tflite $W/models/swin_tiny_timm__norank__twin.tflite > "$O/bisect-js32.log" 2>&1
el "bisect js fp32 rc=$?"
pkill -f gpuclean-litert 2>/dev/null; true
