#include "engine/runtime/cpu/cpu_backend.h"
