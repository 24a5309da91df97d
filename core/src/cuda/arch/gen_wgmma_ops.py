#!/usr/bin/env python3
"""Writes wgmma_ops.cuh: the inline-PTX wgmma.mma_async wrappers (arch/wgmma.cuh includes it).

An asm statement needs one operand per accumulator register, so each (instruction, N) pair is one
literal block; generating them keeps the blocks consistent. CMake runs this at build time
(core/CMakeLists.txt) into <build>/core/generated/cuda/arch/wgmma_ops.cuh:
    python3 gen_wgmma_ops.py OUTPUT        (or with no argument: to standard output)
"""
import sys

KINDS = [  # (name, PTX type suffix, k per instruction, trailing immediates)
    ("f16", "f32.f16.f16", 16, "1, 1, 0, 0"),   # scale-a, scale-b, A and B K-major (no transpose)
    ("bf16", "f32.bf16.bf16", 16, "1, 1, 0, 0"),
    ("tf32", "f32.tf32.tf32", 8, "1, 1"),         # TF32 has no transpose operands
]
NS = [128, 192]
NAMES = {"f16": "FP16", "bf16": "BF16", "tf32": "TF32"}
# INT8 x INT8 -> INT32 (int8-crt's residue products, kernels/crt_wgmma_s8.cuh): k = 32 per instruction,
# no scale or transpose immediates (integer wgmma has neither; both operands K-major), and no
# .satfinite, so the INT32 sums wrap as cuBLAS's do (they stay exact below 2^31 by the caller's k chunk).
S8_NS = [128, 256]


def block(kind, types, k, tail, n):
    r = n // 2
    regs = ", ".join(f"%{i}" for i in range(r))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(r))
    return (
        f'/// d = A * B + (scale_d ? d : 0), m64n{n}k{k}, {NAMES[kind]} inputs.\n'
        f'__device__ __forceinline__ void wgmma_m64n{n}k{k}_{kind}(float (&d)[{r}], std::uint64_t da, std::uint64_t db,\n'
        f'                                                     int scale_d) {{\n'
        f'  asm volatile(\n'
        f'      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"\n'
        f'      "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{types} {{{regs}}}, %{r}, %{r + 1}, p, {tail};\\n}}\\n"\n'
        f'      : {outs}\n'
        f'      : "l"(da), "l"(db), "r"(scale_d));\n'
        f'}}\n'
    )


def block_s8(n):
    r = n // 2
    regs = ", ".join(f"%{i}" for i in range(r))
    outs = ", ".join(f'"+r"(d[{i}])' for i in range(r))
    return (
        f'/// d = A * B + (scale_d ? d : 0), m64n{n}k32, INT8 inputs, INT32 accumulators (wrapping).\n'
        f'__device__ __forceinline__ void wgmma_m64n{n}k32_s8(std::int32_t (&d)[{r}], std::uint64_t da,\n'
        f'                                                 std::uint64_t db, int scale_d) {{\n'
        f'  asm volatile(\n'
        f'      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"\n'
        f'      "wgmma.mma_async.sync.aligned.m64n{n}k32.s32.s8.s8 {{{regs}}}, %{r}, %{r + 1}, p;\\n}}\\n"\n'
        f'      : {outs}\n'
        f'      : "l"(da), "l"(db), "r"(scale_d));\n'
        f'}}\n'
    )


def main():
    out = [
        "#pragma once\n",
        "// GENERATED at build time by core/src/cuda/arch/gen_wgmma_ops.py; edit that script, not this file.\n",
        "// wgmma.mma_async m64nNk16 (FP16 / BF16) and m64nNk8 (TF32), N = 128 or 192: FP32 accumulators in\n",
        "// registers (N / 2 per thread of the warpgroup), A and B from shared memory through descriptors\n",
        "// (arch/wgmma.cuh: desc), D = A * B + (scale_d ? D : 0); and m64nNk32 INT8 x INT8 -> INT32, N = 128\n",
        "// or 256 (INT32 accumulators, N / 2 per thread). sm_90a only.\n",
        "#include <cstdint>\n\n",
        "namespace tcemu::cuda::detail::arch {\n\n",
        "#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)\n",
    ]
    blocks = [block(kind, types, k, tail, n) for n in NS for kind, types, k, tail in KINDS]
    blocks += [block_s8(n) for n in S8_NS]
    out.append("\n".join(blocks))
    out.append("#endif\n\n}  // namespace tcemu::cuda::detail::arch\n")
    text = "".join(out)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
