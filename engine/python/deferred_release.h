// Releases of borrowed Python memory (a NumPy array's reference, a DLPack deleter), deferred to
// a thread that holds the GIL and no ember lock.
//
// Note [Deferred releases]
// ember.from_dlpack borrows the producer's memory (ember::ImportMemory; Note [Borrowed host
// memory] in engine/runtime/cpu/cpu_buffer.h) and gives it back when the last handle that
// reads it goes. That can happen on any thread: a Python thread that holds the GIL, a thread
// that released it inside an ember call, an ember worker; and often while that thread holds a
// device server's lock (a Drop runs, a kernel's last use frees its input). Giving the memory
// back needs the GIL: NumPy's and PyTorch's DLPack deleters Py_DECREF, and a Py_DECREF may run
// any Python code. Taking the GIL there would deadlock: a Python thread may hold the GIL while
// it waits for that server lock (a tensor's Drop from a Python destructor, bindings.h). Running
// the release at once when the thread happens to hold the GIL is no better: the Python code a
// Py_DECREF runs may call ember, which would wait for the lock its own thread holds.
//
// So the owner of borrowed memory only queues its release (DeferRelease: a mutex of its own,
// never held while anything else is taken), and the queue is drained by a thread that holds the
// GIL and no ember lock:
//  - a pending call (Py_AddPendingCall, which needs no GIL), scheduled when the queue goes from
//    empty to not empty: the main thread runs it between two bytecodes;
//  - the bindings that return to Python after ember may have released memory (sync,
//    from_dlpack), so that `del t; ember.sync()` has given the memory back when it returns,
//    whichever thread calls it;
//  - an atexit hook, which drains once more and closes the queue. Releases queued after it are
//    dropped (the memory is not given back: the process is ending, and the interpreter may be
//    finalized before the engine's last handles go, when a pending call or a Py_DECREF would
//    crash).
// The queue is never destroyed (a static destructor could run before the engine's), so a
// release at process exit finds it closed, not gone.
#pragma once

#include <memory>

#include "engine/python/bindings.h"

namespace ember::python {

// An owner for ember::ImportMemory (TensorMemory::owner) whose last release queues
// `release(arg)` to run with the GIL held and no ember lock (Note [Deferred releases]).
// Callable with the GIL held; the owner may be released on any thread.
std::shared_ptr<const void> DeferredOwner(void (*release)(void*), void* arg);

// Runs the queued releases. REQUIRES: the GIL is held, and no ember call is in progress on this
// thread.
void RunDeferredReleases();

// Registers the atexit hook that drains and closes the queue. Called once, at module import.
void InstallDeferredReleases(py::module_& m);

}  // namespace ember::python
