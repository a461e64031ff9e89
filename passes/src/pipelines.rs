//! Named pipelines: the pass sequences the tools run by default.

/// From any level (graph, te or loop) to loop-level IR the CPU backend compiles: the graph
/// is rewritten by equality saturation (`graph-eqsat`), graph ops become tensor
/// expressions, which `te-fuse` fuses (producers inlined into consumers by map
/// composition), tensor expressions become buffers and loop nests, and the
/// buffers each function frees itself are packed into one arena. Matmul nests become
/// register-blocked micro-kernels for the host (`loop-matmul-microkernel`); every other nest
/// gets its default schedule unless it has one (`loop-default-schedule`: threads only where
/// the work pays for them, vectorized innermost loops) and is rebuilt by it
/// (`loop-apply-schedule`); neighbouring nests whose outer loops agree and whose
/// dependences stay inside one outer iteration are then fused (`loop-fuse`). Each pass
/// leaves IR that is already at a lower level untouched, so loop-level input only gets its
/// nests scheduled, fused and its buffers planned. Run-time
/// control flow stays structured (`scf` on tensors, then on buffers) through all of it, so
/// the schedules find the nests inside its regions and buffer planning sees a region's
/// buffers live across its op; it becomes `cf` branches last (`convert-scf-to-cf`).
pub const CPU: &str = "builtin.module(graph-eqsat, canonicalize, convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-matmul-microkernel, loop-int-matmul-microkernel, loop-conv-microkernel, loop-default-schedule, loop-apply-schedule, loop-fuse, plan-buffers, convert-scf-to-cf)";

/// The same lowering without the CPU's micro-kernels and schedules; f16 and bf16 matmuls
/// run on tensor cores (`loop-gpu-mma`), large f32 ones become kernels whose blocks stage
/// tiles in shared memory (`loop-gpu-shared-tile`), smaller ones give each thread a
/// register tile (`loop-gpu-register-tile`); buffers are planned after those (so they see
/// a matmul's result as a buffer of its own and compute the elementwise nest after it in
/// their stores), then every other loop nest is mapped onto `gpu.launch` kernels: what
/// `tb-run --device cuda` and `tb-translate --emit=ptx` compile.
pub const GPU: &str = "builtin.module(graph-eqsat, canonicalize, convert-graph-to-te, te-fuse, convert-te-to-loop, canonicalize, loop-gpu-mma, loop-gpu-shared-tile, loop-gpu-register-tile, plan-buffers, convert-loop-to-gpu)";
