// The plain regcopy-opt driver on bad input: exactly one diagnostic on stderr, in clang's layout:
// one line `file:line:col: error: message` (a verifier error names the op), the source line and
// a caret under the column; no Python traceback; exit code 1; nothing written to stdout or -o.
//
// RUN: sh -c 'regcopy-opt %S/Inputs/parse_error.mlir; echo "exit=$?"' 2>&1 | filecheck %s --check-prefix=PARSE
// PARSE-NOT:  Traceback
// PARSE:      {{^.*}}Inputs/parse_error.mlir:4:68: error: unknown thread axis '@lane'; expected one of laneid, tid_in_wg, wid_in_wg, tx, warpid, wgid{{$}}
// PARSE-NEXT: {{^}}  %T = memref.alloca()
// PARSE-NEXT: {{^}}                                                                   ^^^^^{{$}}
// PARSE-NOT:  error
// PARSE-NOT:  Traceback
// PARSE:      {{^}}exit=1{{$}}

// RUN: sh -c 'regcopy-opt %S/Inputs/verify_error.mlir; echo "exit=$?"' 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY-NOT:  Traceback
// VERIFY:      {{^.*}}Inputs/verify_error.mlir:5:3: error: 'regcopy.copy' op does not verify: src and dst element types differ: f16 vs f32; both sides must have element type f16 (or both f32){{.*}}{{$}}
// VERIFY-NEXT: {{^}}  regcopy.copy warp %A -> %R : memref<32x8xf16, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>{{$}}
// VERIFY-NEXT: {{^}}  ^{{$}}
// VERIFY-NOT:  error
// VERIFY-NOT:  region sizes differ
// VERIFY-NOT:  Traceback
// VERIFY:      {{^}}exit=1{{$}}

// Nothing reaches stdout on error.
// RUN: sh -c 'echo BEGIN; regcopy-opt %S/Inputs/parse_error.mlir 2>/dev/null; echo "exit=$?"' | filecheck %s --check-prefix=STDOUT
// RUN: sh -c 'echo BEGIN; regcopy-opt %S/Inputs/verify_error.mlir 2>/dev/null; echo "exit=$?"' | filecheck %s --check-prefix=STDOUT
// STDOUT:      {{^}}BEGIN{{$}}
// STDOUT-NEXT: {{^}}exit=1{{$}}

// With -o, an error writes nothing: no file is created, an existing one is left as it was.
// RUN: rm -f %t.out
// RUN: not regcopy-opt %S/Inputs/verify_error.mlir -o %t.out
// RUN: not test -e %t.out
// RUN: not regcopy-opt %S/Inputs/parse_error.mlir -o %t.out
// RUN: not test -e %t.out
// RUN: echo keep > %t.keep
// RUN: not regcopy-opt %S/Inputs/parse_error.mlir -o %t.keep
// RUN: not regcopy-opt %S/Inputs/verify_error.mlir -o %t.keep
// RUN: filecheck %s --check-prefix=KEEP --input-file %t.keep
// KEEP:     {{^}}keep{{$}}
// KEEP-NOT: {{.}}

// On success -o gets the output.
// RUN: regcopy-opt %S/../../examples/seed_demo.mlir -o %t.ok
// RUN: filecheck %s --check-prefix=OK --input-file %t.ok
// OK: func.func @seed_demo(

// --verify-diagnostics and --parsing-diagnostics keep xDSL's print-and-exit-0 behaviour.
// RUN: regcopy-opt %S/Inputs/verify_error.mlir --verify-diagnostics | filecheck %s --check-prefix=VDIAG
// VDIAG:     {{^}}src and dst element types differ: f16 vs f32
// VDIAG:     Operation does not verify: src and dst element types differ: f16 vs f32
// RUN: regcopy-opt %S/Inputs/parse_error.mlir --parsing-diagnostics | filecheck %s --check-prefix=PDIAG
// PDIAG:     {{.*}}Inputs/parse_error.mlir:4:68: error: unknown thread axis '@lane'

// Pass options: a bare boolean is true, dashes or underscores, and a bad option is one
// diagnostic in the dash spelling that names the valid options or values.
// RUN: regcopy-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{strict remarks max_vector_bits=64 bank-rotation=off transfer=vector}' 2>&1 >/dev/null | filecheck %s --check-prefix=OPTS
// OPTS:      seed_demo.mlir:19:3: remark: vec 2 × f32 (64 bits), 4 rounds, 8 registers/thread [copy %A -> %R in @seed_demo]{{$}}
// OPTS-NEXT: {{^}}  regcopy.copy warp %A[0, 0] [32, 8] -> %R[0, 0] [32, 8] : {{.*}}{{$}}
// OPTS-NEXT: {{^}}  ^{{$}}
// RUN: regcopy-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{strict=true max-vector-bits=32}' | filecheck %s --check-prefix=V32
// V32: vector.load {{.*}} vector<1xf32>
// RUN: not regcopy-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{vectorbits=64}' 2>&1 | filecheck %s --check-prefix=BADOPT
// BADOPT:      {{^}}regcopy-opt: error: lower-reg-copy: unknown option 'vectorbits' (did you mean max-vector-bits?); the options are max-vector-bits, strict, remarks, warn-unlowered, bank-rotation, transfer, select-weight, fma-swap-share, conversion, misaligned-stores{{$}}
// BADOPT-NOT:  {{.}}
// RUN: not regcopy-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{strict=yes}' 2>&1 | filecheck %s --check-prefix=BADBOOL
// BADBOOL:     {{^}}regcopy-opt: error: lower-reg-copy: option strict expects true or false (or bare strict for true), got 'yes'{{$}}
// RUN: not regcopy-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{bank_rotation=on}' 2>&1 | filecheck %s --check-prefix=BADBANK
// BADBANK:     {{^}}regcopy-opt: error: lower-reg-copy: bank-rotation must be one of auto, off, got 'on'{{$}}
// RUN: not regcopy-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{transfer=ldmatrix}' 2>&1 | filecheck %s --check-prefix=BADXFER
// BADXFER:     {{^}}regcopy-opt: error: lower-reg-copy: transfer must be one of auto, vector, matrix, tma, got 'ldmatrix'{{$}}
// RUN: not regcopy-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{max-vector-bits=48}' 2>&1 | filecheck %s --check-prefix=BADBITS
// BADBITS:     {{^}}regcopy-opt: error: lower-reg-copy: max-vector-bits must be one of 8, 16, 32, 64, 128, got 48{{$}}
// Stock xdsl-opt parses the options the same way (its own error path prints a traceback), and
// its remarks carry the same file:line:col and source line (the regcopy universe, loaded by
// xdsl-opt, records where each op starts).
// RUN: xdsl-opt %S/../../examples/seed_demo.mlir -p 'lower-reg-copy{strict remarks max-vector-bits=64}' 2>&1 >/dev/null | filecheck %s --check-prefix=XOPTS
// XOPTS:      {{^.*}}/examples/seed_demo.mlir:19:3: remark: vec 2 × f32 (64 bits), 4 rounds, 8 registers/thread [copy %A -> %R in @seed_demo]{{$}}
// XOPTS-NEXT: {{^}}  regcopy.copy warp %A[0, 0] [32, 8] -> %R[0, 0] [32, 8] : {{.*}}{{$}}
// XOPTS-NEXT: {{^}}  ^{{$}}
// XOPTS:      {{^.*}}/examples/seed_demo.mlir:20:3: remark: {{.*}} [copy %R -> %B in @seed_demo]{{$}}
