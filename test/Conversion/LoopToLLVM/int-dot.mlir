// `loop.dot` picks the target's integer dot-product instruction: unsigned-by-signed bytes
// in groups of four are one `vpdpbusd` where the CPU has VNNI (AVX-512 VNNI, or the
// VEX-encoded AVX-VNNI), and i16 pairs are `vpmaddwd` on AVX2 (`vpdpwssd` with VNNI).
// Without VNNI, groups of four bytes are widened and multiplied exactly, never through
// the saturating `vpmaddubsw`.
// RUN: tb-translate --emit=asm --mcpu=sapphirerapids %s | FileCheck %s --check-prefix=SPR
// RUN: tb-translate --emit=asm --mcpu=znver4 %s | FileCheck %s --check-prefix=SPR
// RUN: tb-translate --emit=asm --mcpu=alderlake %s | FileCheck %s --check-prefix=ADL
// RUN: tb-translate --emit=asm --mcpu=haswell --mattr=+avx2,+avxvnni %s | FileCheck %s --check-prefix=ADL
// RUN: tb-translate --emit=asm --mcpu=haswell %s | FileCheck %s --check-prefix=AVX2
// RUN: tb-translate --emit=asm --mcpu=sapphirerapids --mattr=-avx512vnni,-avxvnni %s | FileCheck %s --check-prefix=NOVNNI

// SPR-LABEL: tb_bytes:
// SPR:         vpdpbusd {{.*}}%ymm
// ADL-LABEL: tb_bytes:
// ADL:         {vex} vpdpbusd {{.*}}%ymm
// AVX2-LABEL: tb_bytes:
// AVX2-NOT:    vpdpbusd
// AVX2-NOT:    vpmaddubsw
// AVX2:        vpmaddwd
// AVX2-LABEL: tb_pairs:
// NOVNNI-LABEL: tb_bytes:
// NOVNNI-NOT:    vpdpbusd
// NOVNNI-NOT:    vpmaddubsw
// NOVNNI-LABEL: tb_pairs:
func.func @bytes(%acc: memref<8xi32>, %a: memref<4xui8>, %b: memref<32xi8>, %out: memref<8xi32>) {
  %s = loop.vector_load %acc[() -> (0)]() : memref<8xi32>, vector<8xi32>
  %x = loop.vector_load %a[() -> (0)]() : memref<4xui8>, vector<4xi8>
  %y = loop.vector_load %b[() -> (0)]() : memref<32xi8>, vector<32xi8>
  %r = loop.dot %s, %x, %y {unsigned_lhs} : vector<8xi32>, vector<4xi8>, vector<32xi8>
  loop.vector_store %r, %out[() -> (0)]() : memref<8xi32>, vector<8xi32>
  return
}

// SPR-LABEL: tb_pairs:
// SPR:         vpdpwssd
// AVX2:        vpbroadcastd
// AVX2-NEXT:   vpmaddwd {{.*}}%ymm
// AVX2-NEXT:   vpaddd
func.func @pairs(%acc: memref<8xi32>, %a: memref<2xi16>, %b: memref<16xi16>, %out: memref<8xi32>) {
  %s = loop.vector_load %acc[() -> (0)]() : memref<8xi32>, vector<8xi32>
  %x = loop.vector_load %a[() -> (0)]() : memref<2xi16>, vector<2xi16>
  %y = loop.vector_load %b[() -> (0)]() : memref<16xi16>, vector<16xi16>
  %r = loop.dot %s, %x, %y : vector<8xi32>, vector<2xi16>, vector<16xi16>
  loop.vector_store %r, %out[() -> (0)]() : memref<8xi32>, vector<8xi32>
  return
}
