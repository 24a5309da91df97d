#pragma once
/// \file schemes/registry.hpp
/// The scheme registry: one line per catalogue scheme, X(enumerator, descriptor type), in display
/// order (`--list-schemes`, `--scheme all`, docs/schemes.md). The SchemeKind enumerators are generated
/// from this list (scheme.hpp), and every generic table or dispatch — the catalogue, split_element,
/// the split pass's writers, the fused kernels' product sets, range checks, `auto`'s cost branches —
/// is expanded from it. Adding a scheme = one descriptor (a header in this folder, included by
/// schemes/all.hpp) + one line here; see docs/adding-a-scheme.md.
///
/// This header holds only the macro (no includes), so that scheme.hpp can build the enum from it
/// before any descriptor is defined.
#define TCEMU_SCHEME_REGISTRY(X)                   \
  X(fp64, ::tcemu::schemes::Fp64)                  \
  X(fp32, ::tcemu::schemes::Fp32)                  \
  X(tf32, ::tcemu::schemes::Tf32)                  \
  X(bf16, ::tcemu::schemes::Bf16)                  \
  X(fp16, ::tcemu::schemes::Fp16)                  \
  X(fp16x2, ::tcemu::schemes::Fp16x2Ape)           \
  X(fp16x2_markidis, ::tcemu::schemes::Fp16x2Markidis) \
  X(fp16x2_egemm, ::tcemu::schemes::Fp16x2Egemm)   \
  X(fp16x2_legemm, ::tcemu::schemes::Fp16x2Legemm) \
  X(fp16x2_aligned, ::tcemu::schemes::Fp16x2Aligned) \
  X(tf32x2, ::tcemu::schemes::Tf32x2)              \
  X(tf32x2_aligned, ::tcemu::schemes::Tf32x2Aligned) \
  X(bf16x3, ::tcemu::schemes::Bf16x3)              \
  X(bf16x3_aligned, ::tcemu::schemes::Bf16x3Aligned) \
  X(bf16x9, ::tcemu::schemes::Bf16x9)              \
  X(int8_ozaki, ::tcemu::schemes::Int8Ozaki)       \
  X(int8_crt, ::tcemu::schemes::Int8Crt)           \
  X(int8_mixpert, ::tcemu::schemes::Int8Mixpert)   \
  X(automatic, ::tcemu::schemes::Automatic)
