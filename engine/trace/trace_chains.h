// Trace chains: the independent computations one fused trace holds, each as a trace of its own.
//
// Note [Trace chains]
// The search, faithful to burn, puts queued independent calls into one trace: two softmaxes
// called back to back become one ReduceBroadcasted trace of four stages whose fifth block holds
// the first softmax's division and the second's scaling (tests/codegen/golden/two_softmaxes.cu).
// Run as one kernel, every row carries both chains: twice the handovers, more registers, and the
// second chain waits for the first at every row. The decision stays burn's (one trace, one plan
// entry); only the code generator runs each chain as its own kernel (codegen/plan_trace.cpp).
//
// A chain is a connected component of the trace's values: two ops are in one chain when one
// reads a value the other wrote, through a block's local, a handover (kMultiBlockLocal), a
// reduce stage (its input and its output) or an output buffer a later block re-reads. Inputs,
// views, scalars and literals connect nothing: a read of an input (Assign from kInput or
// kInputView) belongs to every chain that uses its local, so two chains over one input each
// read it. Chains are numbered in the order their first op appears (blocks in order, then
// reads, ops, writes), so the numbering is a function of the trace alone.
//
// A chain's trace keeps every block (so block numbers, block shapes and `full` flags stay the
// launch's), every resource (so tensor numbering stays the launch's) and the stages of the
// chain, in order; each block keeps the ops of the chain in their order. A block can therefore
// be empty in a chain's trace.
#pragma once

#include <vector>

#include "engine/trace/fuse_trace.h"

namespace ember {

// The chains of `trace` as traces of their own (Note [Trace chains]) when it holds two or more;
// none when it is one chain (or a Matmul trace), so the common case copies nothing.
std::vector<FuseTrace> SplitTraceChains(const FuseTrace& trace);

// True when block `b` of `trace` has no op and no reduce stage reads from or writes into it.
bool IsIdleBlock(const FuseTrace& trace, uint32_t b);

}  // namespace ember
