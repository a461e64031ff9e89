// scf.parallel is not lowered by convert-scf-to-cf: the pass reports it.
func.func @parallel(%lb: index, %ub: index, %step: index) {
  scf.parallel (%i) = (%lb) to (%ub) step (%step) {
  }
  return
}
