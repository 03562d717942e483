// ember: a lazy tensor engine that fuses operations and remembers its fusion decisions.
// The one public umbrella header: include this, link ember::ember.
#pragma once

#include <ember/device.h>
#include <ember/dtype.h>
#include <ember/error.h>
#include <ember/memory.h>
#include <ember/slice.h>
#include <ember/stats.h>
#include <ember/tensor.h>
