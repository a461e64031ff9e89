// RUN: tb-opt --allow-unregistered-dialect --reconcile-unrealized-casts --verify-diagnostics %s

// A cast between types nothing converts cannot be reconciled.
"func.func"() <{function_type = (i32) -> (), sym_name = "stuck"}> ({
^bb0(%a: i32):
  // expected-error@+1 {{failed to legalize operation 'builtin.unrealized_conversion_cast' that was explicitly marked illegal}}
  %0 = "builtin.unrealized_conversion_cast"(%a) : (i32) -> i64
  "unreg.use"(%0) : (i64) -> ()
  "func.return"() : () -> ()
}) : () -> ()
