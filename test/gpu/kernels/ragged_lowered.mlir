// A hand-lowered ragged copy in the lowered form of a bounds-checked copy: X[M, N] -> registers
// -> Y[M, N] with runtime M, N (f32). Block (r, c) moves columns 128*c .. 128*c+127 of row r;
// thread t owns 4 columns. Versioned: when N % 4 == 0 a vector of 4 is aligned and one
// predicate guards it (a straddling vector is wholly outside then); else the proven path moves
// 4 scalars, each with its own predicate. Outside the extents nothing is read (pad 0.5) or
// written. Launch with grid [M, ceil(N / 128)] (regcopy-run --grid).
func.func @ragged(%X: memref<?x?xf32, #regcopy.mem<global>>,
                  %Y: memref<?x?xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %X, %c0 : memref<?x?xf32, #regcopy.mem<global>>
  %N = memref.dim %X, %c1 : memref<?x?xf32, #regcopy.mem<global>>
  %xs = regcopy.storage %X : memref<?x?xf32, #regcopy.mem<global>> -> memref<?xf32, #regcopy.mem<global>>
  %ys = regcopy.storage %Y : memref<?x?xf32, #regcopy.mem<global>> -> memref<?xf32, #regcopy.mem<global>>
  %row = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %cb = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0b = arith.muli %cb, %c128 : index
  %t4 = arith.muli %tx, %c4 : index
  %col = arith.addi %c0b, %t4 : index
  %rin = arith.cmpi ult, %row, %M : index
  %base = arith.muli %row, %N : index
  %off = arith.addi %base, %col : index
  %nrem = arith.remui %N, %c4 : index
  %ok = arith.cmpi eq, %nrem, %c0 : index
  scf.if %ok {
    %end = arith.addi %col, %c4 : index
    %cin = arith.cmpi sle, %end, %N : index
    %p = arith.andi %rin, %cin : i1
    %v = scf.if %p -> (vector<4xf32>) {
      %x = vector.load %xs[%off] : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
      scf.yield %x : vector<4xf32>
    } else {
      %pad = arith.constant dense<5.000000e-01> : vector<4xf32>
      scf.yield %pad : vector<4xf32>
    }
    scf.if %p {
      vector.store %v, %ys[%off] : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
    }
  } else {
    scf.for %j = %c0 to %c4 step %c1 {
      %cj = arith.addi %col, %j : index
      %in = arith.cmpi slt, %cj, %N : index
      %q = arith.andi %rin, %in : i1
      %o = arith.addi %off, %j : index
      %s = scf.if %q -> (vector<1xf32>) {
        %x = vector.load %xs[%o] : memref<?xf32, #regcopy.mem<global>>, vector<1xf32>
        scf.yield %x : vector<1xf32>
      } else {
        %pad = arith.constant dense<5.000000e-01> : vector<1xf32>
        scf.yield %pad : vector<1xf32>
      }
      scf.if %q {
        vector.store %s, %ys[%o] : memref<?xf32, #regcopy.mem<global>>, vector<1xf32>
      }
    }
  }
  func.return
}
