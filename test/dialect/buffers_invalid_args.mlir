// RUN: not regcopy-opt %s 2>&1 | filecheck %s
func.func @sub_byte(%a: memref<64xi4, #regcopy.mem<global>>) {
  func.return
}
// CHECK: error: 'func.func' op does not verify: buffer memref<64xi4, #regcopy.mem<global>>: element type i4 is not supported (sub-byte element types are not supported); expected one of f64 f32 f16 bf16 i64 i32 i16 i8 ui8 f8E4M3FN f8E5M2
