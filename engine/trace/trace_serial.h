// TraceSerial: a number that names one immutable fused trace for the life of the process.
//
// Backends keep per-trace work across launches (the CPU's compiled plans, the CUDA backend's
// launch records). Keying that work by the trace's address is unsafe on its own (a plan freed
// and another allocated at the same address), and comparing the whole trace on every launch
// costs as much as a small launch. A serial is never handed out twice, so equal serials mean
// the same trace content and a cache keyed by it needs no deep compare. Owners take one when
// the trace is built and never change the trace afterwards (TraceOptimization, the CUDA
// backend's one-op traces); 0 means "no serial" and such launches are not recorded.
#pragma once

#include <cstdint>

namespace ember {

// A fresh serial, never 0, never returned before in this process. Thread-safe.
uint64_t NewTraceSerial();

}  // namespace ember
