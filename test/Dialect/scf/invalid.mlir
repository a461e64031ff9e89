// RUN: tb-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// MLIR gives the same diagnostics:
// RUN: %if mlir-opt %{ mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s %}

func.func @for_bound_not_integer(%f: f32, %i: index) {
  // expected-error@+1 {{operand #0 must be signless integer or index, but got 'f32'}}
  "scf.for"(%f, %i, %i) ({}) : (f32, index, index) -> ()
  return
}

// -----

func.func @for_bounds_of_different_types(%a: i32, %i: index) {
  // expected-error@+1 {{failed to verify that all of {lowerBound, upperBound, step} have same type}}
  "scf.for"(%i, %a, %i) ({}) : (index, i32, index) -> ()
  return
}

// -----

func.func @for_induction_variable_type(%i: index) {
  // expected-error@+1 {{expected induction variable to be same type as bounds}}
  "scf.for"(%i, %i, %i) ({
  ^bb0(%iv: f32):
    scf.yield
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @for_results_and_iter_args(%i: index, %f: f32) {
  // expected-error@+1 {{mismatch in number of loop-carried values and defined values}}
  "scf.for"(%i, %i, %i, %f) ({
  ^bb0(%iv: index, %acc: f32):
    scf.yield %acc : f32
  }) : (index, index, index, f32) -> ()
  return
}

// -----

func.func @for_yield_type(%i: index, %f: f32) {
  // expected-error@+1 {{0-th region iter_arg and 0-th yielded value have different type: 'f32' != 'i32'}}
  %r = scf.for %iv = %i to %i step %i iter_args(%acc = %f) -> (f32) {
    %c = arith.constant 1 : i32
    scf.yield %c : i32
  }
  return
}

// -----

func.func @for_too_few_yielded(%i: index, %f: f32) {
  // expected-error@+1 {{different number of region iter_args and yielded values: 2 != 1}}
  %r:2 = scf.for %iv = %i to %i step %i iter_args(%a = %f, %b = %f) -> (f32, f32) {
    scf.yield %a : f32
  }
  return
}

// -----

func.func @for_iter_args_and_types(%i: index, %f: f32) {
  // expected-error@+1 {{mismatch in number of loop-carried values and defined values}}
  %r:2 = scf.for %iv = %i to %i step %i iter_args(%a = %f) -> (f32, f32) {
    scf.yield %a, %a : f32, f32
  }
  return
}

// -----

func.func @if_condition_not_i1(%i: index) {
  // expected-error@+1 {{operand #0 must be 1-bit signless integer, but got 'index'}}
  "scf.if"(%i) ({}, {}) : (index) -> ()
  return
}

// -----

func.func @if_region_arguments(%c: i1) {
  // expected-error@+1 {{region #0 should have no arguments}}
  "scf.if"(%c) ({
  ^bb0(%x: index):
    scf.yield
  }, {}) : (i1) -> ()
  return
}

// -----

func.func @if_results_without_else(%c: i1, %f: f32) {
  // expected-error@+1 {{must have an else block if defining values}}
  %r = scf.if %c -> (f32) {
    scf.yield %f : f32
  }
  return
}

// -----

func.func @if_yields_too_few(%c: i1, %f: f32) {
  // expected-error@+1 {{along control flow edge from Operation scf.yield to parent: region branch point has 1 operands, but region successor needs 2 inputs}}
  %r:2 = scf.if %c -> (f32, f32) {
    // expected-note@+1 {{region branch point}}
    scf.yield %f : f32
  } else {
    scf.yield %f, %f : f32, f32
  }
  return
}

// -----

func.func @if_wrong_terminator(%c: i1) {
  // expected-error@+2 {{expects regions to end with 'scf.yield', found 'test.finish'}}
  // expected-note@+1 {{in custom textual format, the absence of terminator implies 'scf.yield'}}
  "scf.if"(%c) ({
    "test.finish"() : () -> ()
  }, {}) : (i1) -> ()
  return
}

// -----

func.func @yield_outside_scf() {
  "test.region"() ({
    // expected-error@+1 {{'scf.yield' op expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'}}
    scf.yield
  }) : () -> ()
  return
}

// -----

func.func @while_input_types() {
  %true = arith.constant true
  // expected-error@+1 {{expected as many input types as operands (expected 0 got 1)}}
  scf.while : (i32) -> () {
    scf.condition(%true)
  } do {
    scf.yield
  }
  return
}

// -----

func.func @while_before_terminator() {
  // expected-error@+1 {{expects the 'before' region to terminate with 'scf.condition'}}
  scf.while : () -> () {
    // expected-note@+1 {{terminator here}}
    "test.finish"() : () -> ()
  } do {
    scf.yield
  }
  return
}

// -----

func.func @while_condition_to_after_region() {
  %true = arith.constant true
  // expected-error@+1 {{along control flow edge from Operation scf.condition to Region #1: successor operand type #0 'i1' should match successor input type #0 'i32'}}
  %r = scf.while : () -> (i1) {
    // expected-note@+1 {{region branch point}}
    scf.condition(%true) %true : i1
  } do {
  ^bb0(%x: i32):
    scf.yield
  }
  return
}

// -----

func.func @condition_outside_while(%c: i1) {
  "test.region"() ({
    // expected-error@+1 {{'scf.condition' op expects parent op 'scf.while'}}
    scf.condition(%c)
  }) : () -> ()
  return
}

// -----

func.func @execute_region_arguments() {
  // expected-error@+1 {{region cannot have any arguments}}
  "scf.execute_region"() ({
  ^bb0(%x: i32):
    scf.yield
  }) : () -> ()
  return
}

// -----

func.func @switch_case_count(%i: index) {
  // expected-error@+1 {{'scf.index_switch' op has 0 case regions but 1 case values}}
  "scf.index_switch"(%i) ({
    scf.yield
  }) {cases = array<i64: 1>} : (index) -> ()
  return
}

// -----

func.func @switch_duplicate_case(%i: index) {
  // expected-error@+1 {{'scf.index_switch' op has duplicate case value: 3}}
  scf.index_switch %i
  case 3 {
    scf.yield
  }
  case 3 {
    scf.yield
  }
  default {
  }
  return
}

// -----

func.func @switch_result_type(%i: index, %x: i32) {
  // expected-error@+1 {{'scf.index_switch' op expected result #0 of each region to be 'index'}}
  %r = scf.index_switch %i -> index
  case 0 {
    // expected-note@+1 {{case region #0 returns 'i32' here}}
    scf.yield %x : i32
  }
  default {
    scf.yield %i : index
  }
  return
}

// -----

func.func @parallel_operand_counts(%a: index, %b: index) {
  // expected-error@+1 {{custom op 'scf.parallel' expected 1 operands}}
  scf.parallel (%i) = (%a) to (%a, %b) step (%b) {
  }
  return
}

// -----

func.func @parallel_no_dimension() {
  // expected-error@+1 {{'scf.parallel' op needs at least one tuple element for lowerBound, upperBound and step}}
  scf.parallel () = () to () step () {
  }
  return
}

// -----

func.func @parallel_results_and_reductions(%a: index) {
  // expected-error@+1 {{expects number of results: 0 to be the same as number of reductions: 1}}
  scf.parallel (%i) = (%a) to (%a) step (%a) {
    %x = arith.constant 1.0 : f32
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      scf.reduce.return %l : f32
    }
  }
  return
}

// -----

func.func @parallel_body_terminator(%a: index) {
  // expected-error@+1 {{expects body to terminate with 'scf.reduce'}}
  scf.parallel (%i) = (%a) to (%a) step (%a) {
    // expected-note@+1 {{terminator here}}
    scf.yield
  }
  return
}

// -----

func.func @reduce_region_arguments(%a: index, %f: f32) {
  %r = scf.parallel (%i) = (%a) to (%a) step (%a) init (%f) -> f32 {
    // expected-error@+1 {{expected two block arguments with type 'f32' in the 0-th reduction region}}
    scf.reduce(%f : f32) {
    ^bb0(%l: f32, %r: i32):
      scf.reduce.return %l : f32
    }
  }
  return
}

// -----

func.func @reduce_return_type(%a: index, %f: f32) {
  %r = scf.parallel (%i) = (%a) to (%a) step (%a) init (%f) -> f32 {
    scf.reduce(%f : f32) {
    ^bb0(%l: f32, %r: f32):
      %c = arith.constant 1 : index
      // expected-error@+1 {{must have type 'f32' (the type of the reduction inputs)}}
      scf.reduce.return %c : index
    }
  }
  return
}

// -----

func.func @reduce_outside_parallel(%f: f32) {
  "test.region"() ({
    // expected-error@+1 {{expects parent op 'scf.parallel'}}
    scf.reduce(%f : f32) {
    ^bb0(%l: f32, %r: f32):
      scf.reduce.return %l : f32
    }
  }) : () -> ()
  return
}
