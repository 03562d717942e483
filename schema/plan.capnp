# ember's plan encoding: relative ops, triggers, strategies, optimization states and fused traces,
# as stored in the plan database. Ordinals are append-only: read schema/README.md before
# changing anything, and log every ordinal you add there.
#
# Enumerations are stored as their C++ stored numbers (UInt8/UInt16), not as Cap'n Proto enums:
# the C++ enums (op_list.def, DType, TensorStatus, ...) are the one source of those numbers, and
# the decoders check every value against them. A value a reader does not know is an error there,
# never a silent default.
@0xc3983495414aebf1;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("ember::schema");

# The newest version in README.md's log. Blobs do not carry it and readers never branch on it
# (fields are only appended); it names what a database was written with (kPlanSchemaVersion).
const schemaVersion :UInt32 = 2;

# The number of op kinds and dtypes this schema version knows. Tested against kNumOpKinds and
# kNumDTypes, so that adding an op kind or a dtype fails a test until it is logged in README.md.
const numOpKinds :UInt16 = 72;
const numDTypes :UInt8 = 6;

# --- Relative ops (engine/ir) -----------------------------------------------------------------

# engine/ir/tensor_ir.h: a tensor at one use inside an op.
struct TensorIr {
  id @0 :UInt64;           # relative id (position of first appearance)
  shape @1 :List(Int64);   # relative shape ids
  status @2 :UInt8;        # TensorStatus stored number
  dtype @3 :UInt8;         # DType stored number
}

# engine/ir/scalar_ir.h: a tag and the 64 raw bits (floats as IEEE-754 bits, so that a NaN
# payload and the sign of zero survive; a Float64 field could be NaN-canonicalized).
struct ScalarIr {
  kind @0 :UInt8;          # ScalarIr::Kind stored number
  bits @1 :UInt64;
}

# ember/slice.h: the range of one dim.
struct Slice {
  start @0 :Int64;
  end :union {
    toTheEnd @1 :Void;     # std::nullopt
    at @2 :Int64;
  }
  step @3 :Int64;
}

# engine/ir/operation_ir.h: the parameters of a Random op, as raw bits (see ScalarIr).
struct Distribution {
  kind @0 :UInt8;          # Distribution::Kind stored number
  aBits @1 :UInt64;
  bBits @2 :UInt64;
}

# engine/ir/operation_ir.h: one op, every field, whether or not its kind uses it (Note [Op
# layouts]; a non-Random op carries the default distribution).
struct OperationIr {
  kind @0 :UInt16;         # position in engine/ir/op_list.def
  dtype @1 :UInt8;         # family dtype
  inputs @2 :List(TensorIr);
  outputs @3 :List(TensorIr);
  scalars @4 :List(ScalarIr);
  ranges @5 :List(Slice);
  dims @6 :List(Int64);
  distribution @7 :Distribution;
}

# A relative op list on its own: the plans table's ops blob (what plan keys are computed from).
struct OperationList {
  operations @0 :List(OperationIr);
}

# --- Plans (engine/stream/plan.h, engine/search/strategy.h) -----------------------------------

# engine/fuse/optimization.h: burn's {name, bytes}. `name` picks the implementation that
# rebuilds it (engine/fuse/optimization_factory.h); `bytes` are that implementation's own
# encoding (for the built-in fusers: a canonical TraceOptimizationState message).
struct OptimizationState {
  name @0 :Text;
  bytes @1 :Data;
}

# A strategy tree. Queue positions are UInt32: a segment never holds 2^32 ops.
struct ExecutionStrategy {
  union {
    optimization :group {
      state @0 :OptimizationState;
      ordering @1 :List(UInt32);
      score @2 :UInt64;
    }
    operations :group {
      ordering @3 :List(UInt32);
    }
    composed :group {
      children @4 :List(ExecutionStrategy);
    }
  }
}

struct BlockOptimization {
  strategy @0 :ExecutionStrategy;
  ordering @1 :List(UInt32);
}

struct ExecutionTrigger {
  kind @0 :UInt8;                       # ExecutionTrigger::Kind stored number
  operations @1 :List(OperationIr);     # OnOperations only
}

struct ExecutionPlan {
  operations @0 :List(OperationIr);     # relative
  triggers @1 :List(ExecutionTrigger);
  optimization @2 :BlockOptimization;
}

# --- Fused traces (engine/trace/fuse_trace.h) -------------------------------------------------

struct FuseArg {
  kind @0 :UInt8;          # FuseArgKind stored number
  dtype @1 :UInt8;
  pos @2 :UInt32;
  block @3 :UInt32;        # MultiBlockLocal only
}

struct FuseOp {
  kind @0 :UInt8;          # FuseOpKind stored number
  args @1 :List(FuseArg);  # exactly FuseOpArity(kind) operands (the others are not part of an op);
                           # an indexed op's (Gather, Select, Cat): its indexed inputs, in order
  out @2 :FuseArg;
  dim @3 :Int64;           # indexed ops only: the dim they index along (0 otherwise)
}

struct FuseView {
  kind @0 :UInt8;          # FuseView::Kind stored number
  input @1 :UInt32;
  viewId @2 :UInt64;
  shape @3 :List(Int64);
  dim1 @4 :Int64;
  dim2 @5 :Int64;
}

struct FuseScalar {
  dtype @0 :UInt8;
  placeholder @1 :UInt32;
}

struct FuseBlock {
  shapeRef @0 :List(Int64);
  reads @1 :List(FuseOp);
  ops @2 :List(FuseOp);
  writes @3 :List(FuseOp);
  numLocals @4 :UInt32;
}

struct FuseResources {
  inputs @0 :List(TensorIr);
  outputs @1 :List(TensorIr);
  scalars @2 :List(FuseScalar);
  views @3 :List(FuseView);
  dropped @4 :List(UInt64);
}

struct ReduceStage {
  kind @0 :UInt8;          # ReduceStage::Kind stored number
  from @1 :UInt32;
  axis @2 :Int64;
  input @3 :FuseArg;
  output @4 :FuseArg;
  acc @5 :UInt8;           # accumulator dtype
}

struct MatmulStage {
  lhs @0 :UInt32;
  rhs @1 :UInt32;
  output @2 :FuseArg;
}

struct FuseTrace {
  blocks @0 :List(FuseBlock);
  resources @1 :FuseResources;
  reduces @2 :List(ReduceStage);
  matmul :union {
    none @3 :Void;
    stage @4 :MatmulStage;
  }
}

# The state of a TraceOptimization (ElementWise, Matmul, Reduce, ReduceBroadcasted): the
# OptimizationState bytes of those four names.
struct TraceOptimizationState {
  trace @0 :FuseTrace;
  len @1 :UInt64;
  score @2 :UInt64;
}
