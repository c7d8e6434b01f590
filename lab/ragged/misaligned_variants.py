#!/usr/bin/env python3
"""Hand-written variants of a misaligned-row copy: the evidence behind the fallback of a
versioned copy (``docs/pass.md``, Versioning).

    python3 lab/ragged/misaligned_variants.py [--sass]

An 8 x 1024 f32 tile per CTA (thread t owns columns 4t..4t+3 of each of 8 rows, as the
``bench_ragged`` tile), rows of pitch N, interior tiles only (no bounds), 16384 rows x 3072
columns. For N = 4000 (aligned) and N = 4001..4003 (rows start 4, 8 or 12 bytes past a
16-byte boundary), each variant's GB/s and ratio to the aligned uint4 copy of the same run:

* ``scalar``: 32-bit loads and stores (the proven path of an unpromised row);
* ``twochunk_split``: each vector loaded as the two aligned 128-bit chunks around it, stored
  as its aligned pieces (32 + 64 + 32 or 64 + 64 bits, by the misalignment);
* ``shfl_both`` / ``twochunk_shflst`` / ``shflld_split``: lanes exchange chunk halves with
  warp shuffles so that each loads / stores one aligned 128-bit chunk (the warp's first and
  last lanes add the partial pieces);
* ``ldonly_*`` / ``stonly_*``: one side misaligned, the other aligned (pitch N & ~3), to tell
  which side costs;
* ``scalarld_predsplit``: what the pass emits (32-bit loads; each aligned piece of a store
  under a predicate on the misalignment, no branch); ``scalarld_shflst``: the same loads with
  warp-shuffled stores; ``scalarld_smemst`` / ``stonly_smem``: stores staged through shared
  memory and a barrier, so that only the CTA's two edge chunks of a row are pieces;
* ``diag_*`` (timing only, output not checked): ``diag_fullsector`` writes every 32-byte
  sector whole from one CTA (the two chunks past its segment read from the source, which a
  register tile's store does not have); ``diag_edgesplit``: aligned rows, the warp's edge
  chunks as sub-16-byte pieces from one lane; ``diag_shflcost``: aligned rows paying the
  shuffles; ``diag_shfl_noedge``: shuffled stores without the warp's edge pieces;
* ``*_t``: the same kernels on a grid with the column tile on ``blockIdx.x``, so that the
  CTAs sharing a chunk at a tile edge run side by side (ratios to ``aligned_t``).

What it showed on the H200 (``lab/results/misaligned_variants_2026-12-02_session3.txt``):
a misaligned row's loss is in the 16-byte chunks that two CTAs write a part of each, and in
the grid order: with the row tile on ``x`` (column neighbours a wave or two apart) those
chunks cost 7-11% however the CTA arranges its own stores; with the column tile on ``x`` the
emitted code runs at 0.96-0.97x and shuffled or shared-staged stores at 0.98-0.99x;
``diag_fullsector`` (no shared chunk) runs at 1.01x in either order. Sub-16-byte pieces from
one lane and the shuffles themselves cost nothing.

After the timings, every variant's output is compared with its input (bit for bit). ``--sass``
(no GPU) prints each kernel's global and shuffle instructions.
"""

import re
import sys

import numpy as np

from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device
from regcopy_bench.bench_copy import time_launches

SRC = r'''
typedef unsigned int u32;
__device__ __forceinline__ uint4 ld4(const float* p){ return *reinterpret_cast<const uint4*>(p); }
__device__ __forceinline__ void st4(float* p, uint4 v){ asm volatile("st.global.v4.b32 [%0], {%1,%2,%3,%4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory"); }
__device__ __forceinline__ void st2(float* p, u32 a, u32 b){ asm volatile("st.global.v2.b32 [%0], {%1,%2};" :: "l"(p), "r"(a), "r"(b) : "memory"); }
__device__ __forceinline__ void st1(float* p, u32 a){ asm volatile("st.global.b32 [%0], %1;" :: "l"(p), "r"(a) : "memory"); }
__device__ __forceinline__ u32 w(uint4 v, int i){ return i==0?v.x:i==1?v.y:i==2?v.z:v.w; }
// pick 4 words starting at word s of (lo, hi)
__device__ __forceinline__ uint4 pick(uint4 lo, uint4 hi, int s){
  switch(s){ case 0: return lo; case 1: return make_uint4(lo.y,lo.z,lo.w,hi.x);
   case 2: return make_uint4(lo.z,lo.w,hi.x,hi.y); default: return make_uint4(lo.w,hi.x,hi.y,hi.z);} }
// store v (4 words) at p whose misalignment (words) is s, split into aligned pieces
__device__ __forceinline__ void stsplit(float* p, uint4 v, int s){
  switch(s){ case 0: st4(p,v); break;
   case 2: st2(p,v.x,v.y); st2(p+2,v.z,v.w); break;
   case 1: st1(p,v.x); st2(p+1,v.y,v.z); st1(p+3,v.w); break;
   default: st1(p,v.x); st2(p+1,v.y,v.z); st1(p+3,v.w); } }

#define PROLOG long long row = (long long)blockIdx.x*8, col = (long long)blockIdx.y*1024 + threadIdx.x*4; \
  long long base = row*N + col; u32 R[32];

extern "C" __global__ void __launch_bounds__(256) aligned(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 v=ld4(X+base+f*N); R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ st4(Y+base+f*N, make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3])); }
}
extern "C" __global__ void __launch_bounds__(256) scalar(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int i=0;i<32;i++){ R[i]=__float_as_uint(X[base+(i/4)*N+i%4]); }
  #pragma unroll
  for(int i=0;i<32;i++){ st1(Y+base+(i/4)*N+i%4, R[i]); }
}
// C: two aligned chunks per vector + select; split stores
extern "C" __global__ void __launch_bounds__(256) twochunk_split(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int s=(int)(e&3); const float* a=X+(e-s);
    uint4 lo=ld4(a), hi=lo; if(s) hi=ld4(a+4); uint4 v=pick(lo,hi,s);
    R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int s=(int)(e&3);
    stsplit(Y+e, make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3]), s); }
}
// D: shuffles. lane loads chunk C_l=[e+4-s, e+8-s); needs C_{l-1} from lane-1 (lane 0 loads it).
// stores C_l = own last s + next lane's first 4-s (lane 31: partial own s); lane 0 stores its head partial.
__device__ __forceinline__ void load_shfl(const float* X, long long e, u32* r){
  int lane=threadIdx.x&31; int s=(int)(e&3);
  if(s==0){ uint4 v=ld4(X+e); r[0]=v.x;r[1]=v.y;r[2]=v.z;r[3]=v.w; return; }
  const float* c=X+(e-s+4); uint4 own=ld4(c);
  uint4 prev; prev.x=__shfl_up_sync(~0u,own.x,1); prev.y=__shfl_up_sync(~0u,own.y,1);
  prev.z=__shfl_up_sync(~0u,own.z,1); prev.w=__shfl_up_sync(~0u,own.w,1);
  if(lane==0) prev=ld4(c-4);
  uint4 v=pick(prev,own,s); r[0]=v.x;r[1]=v.y;r[2]=v.z;r[3]=v.w;
}
__device__ __forceinline__ void store_shfl(float* Y, long long e, const u32* r){
  int lane=threadIdx.x&31; int s=(int)(e&3);
  uint4 mine=make_uint4(r[0],r[1],r[2],r[3]);
  if(s==0){ st4(Y+e,mine); return; }
  uint4 nx; nx.x=__shfl_down_sync(~0u,mine.x,1); nx.y=__shfl_down_sync(~0u,mine.y,1);
  nx.z=__shfl_down_sync(~0u,mine.z,1); nx.w=__shfl_down_sync(~0u,mine.w,1);
  float* c=Y+(e-s+4);
  if(lane!=31){ uint4 out=pick(mine,nx,4-s); st4(c,out); }
  else { // own last s words at c[0..s)
    if(s==1) st1(c,mine.w); else if(s==2) st2(c,mine.z,mine.w); else { st2(c,mine.y,mine.z); st1(c+2,mine.w);} }
  if(lane==0){ // own first 4-s words at Y+e .. (e+4-s)
    if(s==3) st1(Y+e,mine.x); else if(s==2) st2(Y+e,mine.x,mine.y); else { st1(Y+e,mine.x); st2(Y+e+1,mine.y,mine.z);} }
}
extern "C" __global__ void __launch_bounds__(256) shfl_both(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int f=0;f<8;f++) load_shfl(X, base+f*N, R+4*f);
  #pragma unroll
  for(int f=0;f<8;f++) store_shfl(Y, base+f*N, R+4*f);
}
extern "C" __global__ void __launch_bounds__(256) twochunk_shflst(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int s=(int)(e&3); const float* a=X+(e-s);
    uint4 lo=ld4(a), hi=lo; if(s) hi=ld4(a+4); uint4 v=pick(lo,hi,s);
    R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++) store_shfl(Y, base+f*N, R+4*f);
}
extern "C" __global__ void __launch_bounds__(256) shflld_split(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int f=0;f<8;f++) load_shfl(X, base+f*N, R+4*f);
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int s=(int)(e&3);
    stsplit(Y+e, make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3]), s); }
}

// the compiled fallback's loads (32-bit) with warp-shuffled stores
extern "C" __global__ void __launch_bounds__(256) scalarld_shflst(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int i=0;i<32;i++){ R[i]=__float_as_uint(X[base+(i/4)*N+i%4]); }
  #pragma unroll
  for(int f=0;f<8;f++) store_shfl(Y, base+f*N, R+4*f);
}
// the compiled fallback's loads and stores: 32-bit loads, every aligned piece predicated on k
extern "C" __global__ void __launch_bounds__(256) scalarld_predsplit(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  #pragma unroll
  for(int i=0;i<32;i++){ R[i]=__float_as_uint(X[base+(i/4)*N+i%4]); }
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int k=(int)(e&3); const u32* r=R+4*f;
    if(k==0) st4(Y+e, make_uint4(r[0],r[1],r[2],r[3]));
    if(k==2) st2(Y+e, r[0], r[1]);
    if(k==2) st2(Y+e+2, r[2], r[3]);
    if(k&1) st2(Y+e+1, r[1], r[2]);
    if(k&1) st1(Y+e, r[0]);
    if(k&1) st1(Y+e+3, r[3]); }
}

// diagnostics: misaligned load only (store aligned to pitch Na=N&~3), misaligned store only
extern "C" __global__ void __launch_bounds__(256) ldonly_twochunk(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col;
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int s=(int)(e&3); const float* a=X+(e-s);
    uint4 lo=ld4(a), hi=lo; if(s) hi=ld4(a+4); uint4 v=pick(lo,hi,s);
    R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ st4(Y+ba+f*Na, make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3])); }
}
extern "C" __global__ void __launch_bounds__(256) stonly_split(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col;
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 v=ld4(X+ba+f*Na); R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int s=(int)(e&3);
    stsplit(Y+e, make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3]), s); }
}
extern "C" __global__ void __launch_bounds__(256) stonly_scalar(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col;
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 v=ld4(X+ba+f*Na); R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N;
    st1(Y+e,R[4*f]); st1(Y+e+1,R[4*f+1]); st1(Y+e+2,R[4*f+2]); st1(Y+e+3,R[4*f+3]); }
}
extern "C" __global__ void __launch_bounds__(256) stonly_shfl(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col;
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 v=ld4(X+ba+f*Na); R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++) store_shfl(Y, base+f*N, R+4*f);
}
// twochunk loads with L1 no-allocate on the first... and split stores with .cs (streaming)
extern "C" __global__ void __launch_bounds__(256) ldonly_scalar(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col;
  #pragma unroll
  for(int i=0;i<32;i++){ R[i]=__float_as_uint(X[base+(i/4)*N+i%4]); }
  #pragma unroll
  for(int f=0;f<8;f++){ st4(Y+ba+f*Na, make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3])); }
}
// CTA-wide staging: R goes to shared memory as the tile was (conflict-free 128-bit), a barrier,
// then thread t stores the t-th 16-byte-aligned chunk of the CTA's row segment (two aligned
// shared chunks and a select); thread 255 adds the tail piece, thread 0 the head piece.
// One row's misalignment s is the same for the whole CTA, so no lane diverges but 0 and 255.
__device__ __forceinline__ void store_staged(float* Y, long long e0, const uint4* T, int t){
  int s=(int)(e0&3); uint4 lo=T[t];
  if(s==0){ st4(Y+e0+4*t, lo); return; }
  float* c=Y+e0+4-s+4*t;
  if(t!=255){ uint4 hi=T[t+1]; st4(c, pick(lo,hi,4-s)); }
  else { if(s==1) st1(c,lo.w); else if(s==2) st2(c,lo.z,lo.w); else { st2(c,lo.y,lo.z); st1(c+2,lo.w);} }
  if(t==0){ if(s==3) st1(Y+e0,lo.x); else if(s==2) st2(Y+e0,lo.x,lo.y); else { st1(Y+e0,lo.x); st2(Y+e0+1,lo.y,lo.z);} }
}
extern "C" __global__ void __launch_bounds__(256) scalarld_smemst(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  __shared__ uint4 T[8][256];
  int t=threadIdx.x;
  #pragma unroll
  for(int i=0;i<32;i++){ R[i]=__float_as_uint(X[base+(i/4)*N+i%4]); }
  #pragma unroll
  for(int f=0;f<8;f++) T[f][t]=make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3]);
  __syncthreads();
  #pragma unroll
  for(int f=0;f<8;f++) store_staged(Y, row*N+(long long)blockIdx.y*1024+f*N, T[f], t);
}
extern "C" __global__ void __launch_bounds__(256) stonly_smem(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col;
  __shared__ uint4 T[8][256];
  int t=threadIdx.x;
  #pragma unroll
  for(int f=0;f<8;f++) T[f][t]=ld4(X+ba+f*Na);
  __syncthreads();
  #pragma unroll
  for(int f=0;f<8;f++) store_staged(Y, row*N+(long long)blockIdx.y*1024+f*N, T[f], t);
}
// diagnostics (output NOT checked): shuffled stores without the warp's edge pieces; aligned
// rows (pitch N & ~3) whose warp-edge chunks are stored as sub-16-byte pieces; aligned rows
// paying the shuffles (the select word z is a kernel-time 0 the compiler cannot see)
extern "C" __global__ void __launch_bounds__(256) diag_shfl_noedge(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col; int lane=threadIdx.x&31;
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 v=ld4(X+ba+f*Na); R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ long long e=base+f*N; int s=(int)(e&3);
    uint4 mine=make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3]);
    if(s==0){ st4(Y+e,mine); continue; }
    uint4 nx; nx.x=__shfl_down_sync(~0u,mine.x,1); nx.y=__shfl_down_sync(~0u,mine.y,1);
    nx.z=__shfl_down_sync(~0u,mine.z,1); nx.w=__shfl_down_sync(~0u,mine.w,1);
    if(lane!=31) st4(Y+(e-s+4), pick(mine,nx,4-s)); }
}
extern "C" __global__ void __launch_bounds__(256) diag_edgesplit(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col; int lane=threadIdx.x&31;
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 v=ld4(X+ba+f*Na); R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ float* p=Y+ba+f*Na; const u32* r=R+4*f;
    if(lane==0){ st1(p,r[0]); st1(p+1,r[1]); st2(p+2,r[2],r[3]); }
    else if(lane==31){ st2(p,r[0],r[1]); st1(p+2,r[2]); st1(p+3,r[3]); }
    else st4(p, make_uint4(r[0],r[1],r[2],r[3])); }
}
extern "C" __global__ void __launch_bounds__(256) diag_shflcost(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col; int z=(int)(N>>40);
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 v=ld4(X+ba+f*Na); R[4*f]=v.x;R[4*f+1]=v.y;R[4*f+2]=v.z;R[4*f+3]=v.w; }
  #pragma unroll
  for(int f=0;f<8;f++){ uint4 mine=make_uint4(R[4*f],R[4*f+1],R[4*f+2],R[4*f+3]);
    uint4 nx; nx.x=__shfl_down_sync(~0u,mine.x,1); nx.y=__shfl_down_sync(~0u,mine.y,1);
    nx.z=__shfl_down_sync(~0u,mine.z,1); nx.w=__shfl_down_sync(~0u,mine.w,1);
    st4(Y+ba+f*Na, pick(mine,nx,z)); }
}
// diagnostic (output NOT checked): every 32-byte sector of the output written whole by one
// CTA: CTA y writes the 256 aligned chunks from the first sector boundary at or after its
// segment's start (two chunks past its segment come from the source), so no sector is shared
// between CTAs; all stores 128-bit and aligned
extern "C" __global__ void __launch_bounds__(256) diag_fullsector(const float* __restrict__ X, float* __restrict__ Y, long long N){
  PROLOG
  long long Na = N & ~3LL; long long ba = row*Na + col; int t=threadIdx.x;
  __shared__ uint4 T[8][258];
  #pragma unroll
  for(int f=0;f<8;f++){ T[f][t]=ld4(X+ba+f*Na); if(t<2) T[f][256+t]=ld4(X+ba+f*Na+1024); }
  __syncthreads();
  #pragma unroll
  for(int f=0;f<8;f++){ long long e0=row*N+(long long)blockIdx.y*1024+f*N;
    long long a0=(e0+7)&~7LL; int d=(int)(a0-e0); int q=t+d/4, sh=d%4;
    st4(Y+a0+4*t, pick(T[f][q], T[f][q+1], sh)); }
}

'''

TRANSPOSED = ("aligned", "scalarld_predsplit", "scalarld_shflst", "scalarld_smemst")
"""Kernels also built with the column tile on ``blockIdx.x`` (name ``*_t``): the CTAs that
share a row's chunks run side by side; launched on a ``(col_tiles, rows / 8)`` grid."""


def transposed(src: str, name: str) -> str:
    """Kernel ``name`` of ``src`` as ``name_t``: row tile from ``blockIdx.y``, column tile
    from ``blockIdx.x``."""
    start = src.rindex('extern "C"', 0, src.index(f" {name}("))
    body = src[start:src.index("\n}\n", start) + 3]
    return (body.replace(f" {name}(", f" {name}_t(", 1).replace("PROLOG\n", "PROLOG_T\n", 1)
            .replace("blockIdx.y*1024", "blockIdx.x*1024"))


SRC += ("#define PROLOG_T long long row = (long long)blockIdx.y*8, col = (long long)blockIdx.x*1024"
        " + threadIdx.x*4; \\\n  long long base = row*N + col; u32 R[32];\n"
        + "".join(transposed(SRC, n) for n in TRANSPOSED))

NAMES = ["aligned", "scalar", "twochunk_split", "shfl_both", "twochunk_shflst", "shflld_split",
         "ldonly_twochunk", "ldonly_scalar", "stonly_split", "stonly_scalar", "stonly_shfl",
         "scalarld_shflst", "scalarld_predsplit", "scalarld_smemst", "stonly_smem",
         "diag_shfl_noedge", "diag_edgesplit", "diag_shflcost", "diag_fullsector", "aligned_t",
         "scalarld_predsplit_t", "scalarld_shflst_t", "scalarld_smemst_t"]

CHECKED = (*NAMES[1:6], "scalarld_shflst", "scalarld_predsplit", "scalarld_smemst",
           "scalarld_predsplit_t", "scalarld_shflst_t", "scalarld_smemst_t")
"""The variants that move misaligned rows on both sides (compared with their input)."""


def sass_counts() -> dict[str, dict[str, int]]:
    """Per kernel: its LDG/STG/SHFL/LDL/STL instructions and how many of each."""
    counts: dict[str, dict[str, int]] = {}
    current = None
    for line in disassemble(compile_cuda(SRC).cubin).splitlines():
        if m := re.search(r"\.text\.(\w+):", line):
            current = m.group(1)
            counts[current] = {}
        elif current and (m := re.search(r"\b(LDG\S*|STG\S*|SHFL\S*|LDL\S*|STL\S*)", line)):
            counts[current][m.group(1)] = counts[current].get(m.group(1), 0) + 1
    return counts


def main() -> int:
    if "--sass" in sys.argv:
        for name, ops in sass_counts().items():
            print(name, " ".join(f"{op}*{c}" for op, c in sorted(ops.items())))
        return 0
    import cupy as cp

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    ks = {n: compile_kernel(dev, SRC, n) for n in NAMES}
    rows, col_tiles = 8 * 2048, 3
    nbytes = rows * 4200 * 4
    x, y = dev.allocate(nbytes, stream=stream), dev.allocate(nbytes, stream=stream)
    cfg = core.LaunchConfig(grid=(rows // 8, col_tiles, 1), block=(256, 1, 1))
    cfg_t = core.LaunchConfig(grid=(col_tiles, rows // 8, 1), block=(256, 1, 1))
    print("| variant | N | GB/s | vs aligned N = 4000 (same grid order) |")
    print("|---|---|---|---|")
    base_bw: dict[bool, float] = {}
    for pitch in (4000, 4001, 4002, 4003):
        for name in NAMES if pitch == 4000 else [n for n in NAMES if not n.startswith("aligned")]:
            ms = time_launches(stream, lambda name=name, pitch=pitch: core.launch(
                stream, cfg_t if name.endswith("_t") else cfg, ks[name], int(x.handle),
                int(y.handle), np.int64(pitch)), 20)
            bw = 2 * 4 * rows * col_tiles * 1024 / ms / 1e6
            base = base_bw.setdefault(name.endswith("_t"), bw)
            print(f"| {name} | {pitch} | {bw:.0f} | {bw / base:.3f} |")
    wrong = 0
    for pitch in (4001, 4002, 4003):
        xs = cp.random.standard_normal(rows * pitch, dtype=cp.float32)
        for name in CHECKED:
            ys = cp.zeros(rows * pitch + 8, dtype=cp.float32)
            cp.cuda.runtime.deviceSynchronize()  # cupy's stream is not the launch stream
            core.launch(stream, cfg_t if name.endswith("_t") else cfg, ks[name], xs.data.ptr,
                        ys.data.ptr, np.int64(pitch))
            stream.sync()
            got = ys[:rows * pitch].reshape(rows, pitch)
            ok = bool(cp.array_equal(xs.reshape(rows, pitch)[:, :col_tiles * 1024],
                                     got[:, :col_tiles * 1024])) and \
                not bool(got[:, col_tiles * 1024:].any())
            wrong += not ok
            print(f"{name} N={pitch}: {'exact' if ok else 'WRONG'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
